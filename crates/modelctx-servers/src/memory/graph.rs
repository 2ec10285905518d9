//! The knowledge graph's shapes, as the official memory server names them on the wire:
//! entities with observations, and directed relations between entity names.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A node of the graph, known by its unique name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Entity {
    /// The name of the entity
    pub name: String,
    /// The type of the entity
    pub entity_type: String,
    /// An array of observation contents associated with the entity
    pub observations: Vec<String>,
}

/// A directed edge between two entity names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Relation {
    /// The name of the entity where the relation starts
    pub from: String,
    /// The name of the entity where the relation ends
    pub to: String,
    /// The type of the relation
    pub relation_type: String,
}

/// Entities and the relations among them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Graph {
    /// The entities, in the order they were created.
    pub entities: Vec<Entity>,
    /// The relations, in the order they were created.
    pub relations: Vec<Relation>,
}

impl Graph {
    /// The entities `keep` accepts, with every relation that has one of them at either end.
    pub fn only(self, keep: impl Fn(&Entity) -> bool) -> Self {
        let entities: Vec<Entity> = self.entities.into_iter().filter(|entity| keep(entity)).collect();
        let kept: HashSet<&str> = entities.iter().map(|entity| entity.name.as_str()).collect();
        let relations = self
            .relations
            .into_iter()
            .filter(|r| kept.contains(r.from.as_str()) || kept.contains(r.to.as_str()))
            .collect();
        Self { entities, relations }
    }
}

/// Observations to add to one entity.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObservationAddition {
    /// The name of the entity to add the observations to
    pub entity_name: String,
    /// An array of observation contents to add
    pub contents: Vec<String>,
}

/// What was added to one entity.
#[derive(Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddedObservations {
    /// The entity.
    pub entity_name: String,
    /// The contents it did not have before.
    pub added_observations: Vec<String>,
}

/// Observations to remove from one entity.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObservationDeletion {
    /// The name of the entity containing the observations
    pub entity_name: String,
    /// An array of observations to delete
    pub observations: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_keeps_the_relations_with_either_end_in_it() {
        let entity =
            |name: &str| Entity { name: name.into(), entity_type: "t".into(), observations: Vec::new() };
        let relation =
            |from: &str, to: &str| Relation { from: from.into(), to: to.into(), relation_type: "r".into() };
        let graph = Graph {
            entities: vec![entity("a"), entity("b"), entity("c")],
            relations: vec![relation("a", "b"), relation("c", "a"), relation("b", "c")],
        };
        let part = graph.only(|e| e.name == "a");
        assert_eq!(part.entities, [entity("a")]);
        assert_eq!(part.relations, [relation("a", "b"), relation("c", "a")]);
    }
}
