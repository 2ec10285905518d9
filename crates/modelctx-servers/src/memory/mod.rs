//! `memory`: a knowledge graph of entities, their observations and the relations between
//! them, kept in SQLite, with the tool names, arguments and results of the official MCP memory
//! server (`create_entities` … `open_nodes`) and its `memory://knowledge-graph` resource, so a
//! host's configuration switches over unchanged.

mod graph;
mod store;

use std::path::PathBuf;
use std::sync::Arc;

use modelctx::protocol::types::{Implementation, ToolAnnotations};
use modelctx::server::{
    Args, Json, RequestContext, ResourceDef, ResourceError, Server, ServerBuilder, State, ToolDef,
    text_contents,
};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use graph::{AddedObservations, Entity, Graph, ObservationAddition, ObservationDeletion, Relation};
use store::{Store, StoreError};

/// The resource that holds the whole graph.
const GRAPH_URI: &str = "memory://knowledge-graph";

/// Options of `modelctx serve memory`.
#[derive(clap::Args, Clone, Debug)]
pub struct MemoryArgs {
    /// The SQLite database that holds the graph (created when missing; several servers may
    /// share it).
    #[arg(long, value_name = "FILE")]
    db: PathBuf,
    /// Before serving, add the graph of the official memory server's file (its
    /// `memory.jsonl`) to the database; names already there are passed over.
    #[arg(long, value_name = "JSONL")]
    import: Option<PathBuf>,
    /// The most the database may hold, in bytes: past it, a call that would add is refused
    /// with a tool error saying the database is full (deleting makes room).
    #[arg(long, value_name = "BYTES", default_value_t = 256 * 1024 * 1024)]
    max_db_bytes: u64,
}

/// `create_entities` arguments.
#[derive(Deserialize, JsonSchema)]
struct CreateEntitiesArgs {
    entities: Vec<Entity>,
}

/// `create_relations` arguments.
#[derive(Deserialize, JsonSchema)]
struct CreateRelationsArgs {
    relations: Vec<Relation>,
}

/// `add_observations` arguments.
#[derive(Deserialize, JsonSchema)]
struct AddObservationsArgs {
    observations: Vec<ObservationAddition>,
}

/// `delete_entities` arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DeleteEntitiesArgs {
    /// An array of entity names to delete
    entity_names: Vec<String>,
}

/// `delete_observations` arguments.
#[derive(Deserialize, JsonSchema)]
struct DeleteObservationsArgs {
    deletions: Vec<ObservationDeletion>,
}

/// `delete_relations` arguments.
#[derive(Deserialize, JsonSchema)]
struct DeleteRelationsArgs {
    /// An array of relations to delete
    relations: Vec<Relation>,
}

/// `search_nodes` arguments.
#[derive(Deserialize, JsonSchema)]
struct SearchNodesArgs {
    /// The search query to match against entity names, types, and observation content
    query: String,
}

/// `open_nodes` arguments.
#[derive(Deserialize, JsonSchema)]
struct OpenNodesArgs {
    /// An array of entity names to retrieve
    names: Vec<String>,
}

/// The entities `create_entities` added.
#[derive(Serialize, JsonSchema)]
struct CreatedEntities {
    entities: Vec<Entity>,
}

/// The relations `create_relations` added.
#[derive(Serialize, JsonSchema)]
struct CreatedRelations {
    relations: Vec<Relation>,
}

/// What `add_observations` added, per entity.
#[derive(Serialize, JsonSchema)]
struct AddedToEntities {
    results: Vec<AddedObservations>,
}

/// The answer of a `delete_*` tool.
#[derive(Serialize, JsonSchema)]
struct Deleted {
    success: bool,
    message: String,
}

impl Deleted {
    fn of(what: &str) -> Json<Self> {
        Json(Self { success: true, message: format!("{what} deleted successfully") })
    }
}

/// Runs `work` on the store off the async threads.
async fn on_store<T: Send + 'static>(
    store: Arc<Store>,
    work: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(move || work(&store))
        .await
        .unwrap_or_else(|e| Err(StoreError(format!("the memory database call failed: {e}"))))
}

/// Tells subscribers of the graph resource that it changed, when it did.
fn announce(ctx: &RequestContext, changed: bool) {
    if changed {
        ctx.server().resource_updated(GRAPH_URI);
    }
}

/// Adds to the graph, never removes.
fn adds() -> ToolAnnotations {
    ToolAnnotations {
        read_only_hint: Some(false),
        destructive_hint: Some(false),
        idempotent_hint: Some(false),
        open_world_hint: Some(false),
        ..ToolAnnotations::default()
    }
}

/// Removes from the graph; removing again changes nothing.
fn removes() -> ToolAnnotations {
    ToolAnnotations { destructive_hint: Some(true), idempotent_hint: Some(true), ..adds() }
}

/// Reads the graph only.
fn reads() -> ToolAnnotations {
    ToolAnnotations { read_only_hint: Some(true), idempotent_hint: Some(true), ..adds() }
}

/// The tools that add to the graph.
fn adding_tools() -> [ToolDef; 3] {
    [
        ToolDef::new(
            "create_entities",
            |ctx: RequestContext, State(store): State<Arc<Store>>, Args(args): Args<CreateEntitiesArgs>| async move {
                let entities = on_store(store, |store| store.create_entities(args.entities)).await?;
                announce(&ctx, !entities.is_empty());
                Ok::<_, StoreError>(Json(CreatedEntities { entities }))
            },
        )
        .title("Create Entities")
        .description("Create multiple new entities in the knowledge graph")
        .annotations(adds()),
        ToolDef::new(
            "create_relations",
            |ctx: RequestContext, State(store): State<Arc<Store>>, Args(args): Args<CreateRelationsArgs>| async move {
                let relations = on_store(store, |store| store.create_relations(args.relations)).await?;
                announce(&ctx, !relations.is_empty());
                Ok::<_, StoreError>(Json(CreatedRelations { relations }))
            },
        )
        .title("Create Relations")
        .description(
            "Create multiple new relations between entities in the knowledge graph. Relations should be in active voice",
        )
        .annotations(adds()),
        ToolDef::new(
            "add_observations",
            |ctx: RequestContext, State(store): State<Arc<Store>>, Args(args): Args<AddObservationsArgs>| async move {
                let results = on_store(store, |store| store.add_observations(args.observations)).await?;
                announce(&ctx, results.iter().any(|added| !added.added_observations.is_empty()));
                Ok::<_, StoreError>(Json(AddedToEntities { results }))
            },
        )
        .title("Add Observations")
        .description("Add new observations to existing entities in the knowledge graph")
        .annotations(adds()),
    ]
}

/// A tool that removes what `delete` is given and answers that `what` was deleted (the
/// official server's message, whether or not anything was there).
fn deleting<A>(name: &str, what: &'static str, delete: fn(&Store, A) -> Result<bool, StoreError>) -> ToolDef
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
{
    ToolDef::new(
        name,
        move |ctx: RequestContext, State(store): State<Arc<Store>>, Args(args): Args<A>| async move {
            announce(&ctx, on_store(store, move |store| delete(store, args)).await?);
            Ok::<_, StoreError>(Deleted::of(what))
        },
    )
    .annotations(removes())
}

/// The tools that remove from the graph.
fn removing_tools() -> [ToolDef; 3] {
    [
        deleting("delete_entities", "Entities", |store, args: DeleteEntitiesArgs| {
            store.delete_entities(args.entity_names)
        })
        .title("Delete Entities")
        .description("Delete multiple entities and their associated relations from the knowledge graph"),
        deleting("delete_observations", "Observations", |store, args: DeleteObservationsArgs| {
            store.delete_observations(args.deletions)
        })
        .title("Delete Observations")
        .description("Delete specific observations from entities in the knowledge graph"),
        deleting("delete_relations", "Relations", |store, args: DeleteRelationsArgs| {
            store.delete_relations(args.relations)
        })
        .title("Delete Relations")
        .description("Delete multiple relations from the knowledge graph"),
    ]
}

/// Whether `entity` matches `query` (already lowercase): its name, its type or one of its
/// observations holds it, ignoring case.
fn matches(entity: &Entity, query: &str) -> bool {
    let holds = |text: &str| text.to_lowercase().contains(query);
    holds(&entity.name) || holds(&entity.entity_type) || entity.observations.iter().any(|o| holds(o))
}

/// The tools that read the graph.
fn reading_tools() -> [ToolDef; 3] {
    [
        ToolDef::new("read_graph", |State(store): State<Arc<Store>>| async move {
            on_store(store, Store::graph).await.map(Json)
        })
        .title("Read Graph")
        .description("Read the entire knowledge graph")
        .annotations(reads()),
        ToolDef::new(
            "search_nodes",
            |State(store): State<Arc<Store>>, Args(args): Args<SearchNodesArgs>| async move {
                let query = args.query.to_lowercase();
                on_store(store, move |store| Ok(store.graph()?.only(|entity| matches(entity, &query))))
                    .await
                    .map(Json)
            },
        )
        .title("Search Nodes")
        .description("Search for nodes in the knowledge graph based on a query")
        .annotations(reads()),
        ToolDef::new(
            "open_nodes",
            |State(store): State<Arc<Store>>, Args(args): Args<OpenNodesArgs>| async move {
                on_store(store, move |store| {
                    Ok(store.graph()?.only(|entity| args.names.contains(&entity.name)))
                })
                .await
                .map(Json)
            },
        )
        .title("Open Nodes")
        .description("Open specific nodes in the knowledge graph by their names")
        .annotations(reads()),
    ]
}

/// The whole graph as the resource's JSON.
async fn read_graph_resource(
    State(store): State<Arc<Store>>,
) -> Result<Vec<modelctx::protocol::types::TextOrBlob>, ResourceError> {
    let graph: Graph = on_store(store, Store::graph).await.map_err(|e| ResourceError::Failed(e.0))?;
    let text = serde_json::to_string_pretty(&graph).map_err(|e| ResourceError::Failed(e.to_string()))?;
    Ok(vec![text_contents(GRAPH_URI, Some("application/json"), text)])
}

/// The memory server, not yet built, or why it cannot start (a database it cannot open or
/// migrate).
pub fn builder(args: &MemoryArgs) -> Result<ServerBuilder, String> {
    let store = Arc::new(Store::open(&args.db, args.max_db_bytes)?);
    if let Some(path) = &args.import {
        let text = std::fs::read_to_string(path).map_err(|e| format!("--import {}: {e}", path.display()))?;
        let (entities, relations) =
            store.import_jsonl(&text).map_err(|e| format!("--import {}: {e}", path.display()))?;
        tracing::info!(entities, relations, "imported the new entities and relations of {}", path.display());
    }
    let mut builder = Server::with_info(Implementation {
        title: Some("modelctx memory".into()),
        description: Some("A knowledge graph of entities, observations and relations, kept in SQLite".into()),
        ..Implementation::new("modelctx-memory", env!("CARGO_PKG_VERSION"))
    })
    .state(store)
    .resource(
        ResourceDef::new(GRAPH_URI, "knowledge-graph", read_graph_resource)
            .title("Knowledge Graph")
            .description("The full knowledge graph with all entities and relations")
            .mime_type("application/json"),
    );
    for tool in adding_tools().into_iter().chain(removing_tools()).chain(reading_tools()) {
        builder = builder.tool(tool);
    }
    Ok(builder)
}
