//! The knowledge graph in SQLite: one transaction per tool call, so a call that fails changes
//! nothing, and a schema version (`PRAGMA user_version`) with the migrations that reach it. The
//! database is in WAL mode with a busy timeout, so several processes may share one file; within
//! one process, calls take turns on the one connection.

use std::path::Path;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use super::graph::{AddedObservations, Entity, Graph, ObservationAddition, ObservationDeletion, Relation};

/// The schema, one migration per version: applying `MIGRATIONS[..n]` makes version `n`.
const MIGRATIONS: &[&str] = &["
    CREATE TABLE entities (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        entity_type TEXT NOT NULL
    );
    CREATE TABLE observations (
        id INTEGER PRIMARY KEY,
        entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        content TEXT NOT NULL,
        UNIQUE (entity_id, content)
    );
    CREATE TABLE relations (
        id INTEGER PRIMARY KEY,
        from_name TEXT NOT NULL,
        to_name TEXT NOT NULL,
        relation_type TEXT NOT NULL,
        UNIQUE (from_name, to_name, relation_type)
    );
    CREATE INDEX relations_to ON relations (to_name);
"];

/// How long a call waits for another process's write to finish.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a call failed: a message for the model.
#[derive(Debug, PartialEq, Eq)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull) {
            return Self(
                "the memory database is full (the server's --max-db-bytes): nothing was added; \
                 delete entities, observations or relations to make room"
                    .into(),
            );
        }
        Self(format!("the memory database failed: {e}"))
    }
}

/// Creates an empty file at `path`, readable and writable by its owner only, unless one is
/// there (SQLite gives its journal files the database file's permissions; it would create the
/// file with the process's umask, 0644 as a rule).
fn create_private(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// The graph's database.
pub struct Store {
    connection: Mutex<Connection>,
}

impl Store {
    /// Opens (or creates, readable by its owner only: what a model remembers may be private)
    /// the database at `path`, bounded to about `max_bytes` (past it a change fails, saying
    /// the database is full; a database larger already keeps its size but grows no more), and
    /// brings its schema to the current version.
    pub fn open(path: &Path, max_bytes: u64) -> Result<Self, String> {
        let why = |e: rusqlite::Error| format!("{}: {e}", path.display());
        create_private(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut connection = Connection::open(path).map_err(why)?;
        connection.busy_timeout(BUSY_TIMEOUT).map_err(why)?;
        connection.pragma_update(None, "journal_mode", "WAL").map_err(why)?;
        connection.pragma_update(None, "foreign_keys", true).map_err(why)?;
        let page_size: i64 =
            connection.pragma_query_value(None, "page_size", |row| row.get(0)).map_err(why)?;
        let pages = i64::try_from(max_bytes).unwrap_or(i64::MAX) / page_size.max(1);
        connection.pragma_update(None, "max_page_count", pages.max(1)).map_err(why)?;
        migrate(&mut connection).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Self { connection: Mutex::new(connection) })
    }

    /// Runs `work` in one transaction (immediate: writers take the lock before they read),
    /// committed when it succeeds.
    fn transaction<T>(
        &self,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut connection = self.connection.lock().unwrap_or_else(PoisonError::into_inner);
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let done = work(&transaction)?;
        transaction.commit()?;
        Ok(done)
    }

    /// Adds the entities whose names are new (with their observations); returns them.
    pub fn create_entities(&self, entities: Vec<Entity>) -> Result<Vec<Entity>, StoreError> {
        self.transaction(|tx| insert_entities(tx, entities))
    }

    /// Adds the relations that are new; returns them.
    pub fn create_relations(&self, relations: Vec<Relation>) -> Result<Vec<Relation>, StoreError> {
        self.transaction(|tx| insert_relations(tx, relations))
    }

    /// Adds the graph of an official memory server's JSONL file (`{"type":"entity",…}` and
    /// `{"type":"relation",…}` lines; blank lines and other types are passed over) in one
    /// transaction, as `create_entities` and `create_relations` would. Returns how many
    /// entities and relations were new.
    pub fn import_jsonl(&self, text: &str) -> Result<(usize, usize), StoreError> {
        #[derive(serde::Deserialize)]
        #[serde(tag = "type", rename_all = "lowercase")]
        enum Line {
            Entity(Entity),
            Relation(Relation),
        }
        let (mut entities, mut relations) = (Vec::new(), Vec::new());
        for (number, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
            let value: serde_json::Value = serde_json::from_str(line)
                .map_err(|e| StoreError(format!("line {}: not JSON: {e}", number + 1)))?;
            if !matches!(value.get("type").and_then(serde_json::Value::as_str), Some("entity" | "relation")) {
                continue;
            }
            match serde_json::from_value(value) {
                Ok(Line::Entity(entity)) => entities.push(entity),
                Ok(Line::Relation(relation)) => relations.push(relation),
                Err(e) => return Err(StoreError(format!("line {}: {e}", number + 1))),
            }
        }
        self.transaction(|tx| {
            Ok((insert_entities(tx, entities)?.len(), insert_relations(tx, relations)?.len()))
        })
    }

    /// Adds each entity's new observations; an entity that does not exist fails the whole
    /// call, so nothing is added.
    pub fn add_observations(
        &self,
        additions: Vec<ObservationAddition>,
    ) -> Result<Vec<AddedObservations>, StoreError> {
        self.transaction(|tx| {
            let mut results = Vec::new();
            for addition in additions {
                let id = entity_id(tx, &addition.entity_name)?.ok_or_else(|| {
                    StoreError(format!("Entity with name {} not found", addition.entity_name))
                })?;
                let added_observations = add_observations(tx, id, addition.contents)?;
                results.push(AddedObservations { entity_name: addition.entity_name, added_observations });
            }
            Ok(results)
        })
    }

    /// Removes the named entities with their observations and every relation that has one of
    /// them at either end; names that do not exist are passed over. Returns whether anything
    /// was removed.
    pub fn delete_entities(&self, names: Vec<String>) -> Result<bool, StoreError> {
        self.transaction(|tx| {
            let mut removed = 0;
            for name in names {
                removed +=
                    tx.execute("DELETE FROM relations WHERE from_name = ?1 OR to_name = ?1", params![name])?;
                removed += tx.execute("DELETE FROM entities WHERE name = ?1", params![name])?;
            }
            Ok(removed > 0)
        })
    }

    /// Removes the listed observations of each entity; the rest is passed over. Returns
    /// whether anything was removed.
    pub fn delete_observations(&self, deletions: Vec<ObservationDeletion>) -> Result<bool, StoreError> {
        self.transaction(|tx| {
            let mut removed = 0;
            for deletion in deletions {
                for content in deletion.observations {
                    removed += tx.execute(
                        "DELETE FROM observations WHERE content = ?2
                         AND entity_id = (SELECT id FROM entities WHERE name = ?1)",
                        params![deletion.entity_name, content],
                    )?;
                }
            }
            Ok(removed > 0)
        })
    }

    /// Removes the listed relations; the rest is passed over. Returns whether anything was
    /// removed.
    pub fn delete_relations(&self, relations: Vec<Relation>) -> Result<bool, StoreError> {
        self.transaction(|tx| {
            let mut removed = 0;
            for relation in relations {
                removed += tx.execute(
                    "DELETE FROM relations WHERE from_name = ?1 AND to_name = ?2 AND relation_type = ?3",
                    params![relation.from, relation.to, relation.relation_type],
                )?;
            }
            Ok(removed > 0)
        })
    }

    /// The whole graph, in the order things were created.
    pub fn graph(&self) -> Result<Graph, StoreError> {
        self.transaction(|tx| {
            let mut entities: Vec<(i64, Entity)> = Vec::new();
            let mut rows = tx.prepare("SELECT id, name, entity_type FROM entities ORDER BY id")?;
            for row in rows.query_map([], |row| {
                let entity = Entity { name: row.get(1)?, entity_type: row.get(2)?, observations: Vec::new() };
                Ok((row.get::<_, i64>(0)?, entity))
            })? {
                entities.push(row?);
            }
            let mut rows =
                tx.prepare("SELECT entity_id, content FROM observations ORDER BY entity_id, id")?;
            for row in rows.query_map([], |row| Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?)))? {
                let (id, content) = row?;
                if let Ok(at) = entities.binary_search_by_key(&id, |(entity_id, _)| *entity_id) {
                    entities[at].1.observations.push(content);
                }
            }
            let mut rows =
                tx.prepare("SELECT from_name, to_name, relation_type FROM relations ORDER BY id")?;
            let relations = rows
                .query_map([], |row| {
                    Ok(Relation { from: row.get(0)?, to: row.get(1)?, relation_type: row.get(2)? })
                })?
                .collect::<Result<_, _>>()?;
            Ok(Graph { entities: entities.into_iter().map(|(_, entity)| entity).collect(), relations })
        })
    }
}

/// Brings the schema from its version to the newest, in one transaction; refuses a database
/// from a newer modelctx.
fn migrate(connection: &mut Connection) -> Result<(), String> {
    let at: i64 =
        connection.pragma_query_value(None, "user_version", |row| row.get(0)).map_err(|e| e.to_string())?;
    let newest = i64::try_from(MIGRATIONS.len()).expect("a handful of migrations");
    let Ok(at) = usize::try_from(at) else {
        return Err(format!("the memory database has schema version {at}, which no modelctx made"));
    };
    if at > MIGRATIONS.len() {
        return Err(format!(
            "the memory database is at schema version {at}, newer than this modelctx knows ({})",
            MIGRATIONS.len()
        ));
    }
    let tx = connection.transaction().map_err(|e| e.to_string())?;
    for (version, migration) in MIGRATIONS.iter().enumerate().skip(at) {
        tx.execute_batch(migration)
            .map_err(|e| format!("migrating to schema version {}: {e}", version + 1))?;
    }
    tx.pragma_update(None, "user_version", newest).map_err(|e| e.to_string())?;
    tx.commit().map_err(|e| e.to_string())
}

/// Adds the entities whose names are new (with their observations); returns them.
fn insert_entities(tx: &Transaction<'_>, entities: Vec<Entity>) -> Result<Vec<Entity>, StoreError> {
    let mut created = Vec::new();
    for entity in entities {
        let inserted = tx.execute(
            "INSERT INTO entities (name, entity_type) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING",
            params![entity.name, entity.entity_type],
        )?;
        if inserted == 1 {
            let observations = add_observations(tx, tx.last_insert_rowid(), entity.observations)?;
            created.push(Entity { observations, ..entity });
        }
    }
    Ok(created)
}

/// Adds the relations that are new; returns them.
fn insert_relations(tx: &Transaction<'_>, relations: Vec<Relation>) -> Result<Vec<Relation>, StoreError> {
    let mut created = Vec::new();
    for relation in relations {
        let inserted = tx.execute(
            "INSERT INTO relations (from_name, to_name, relation_type) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
            params![relation.from, relation.to, relation.relation_type],
        )?;
        if inserted == 1 {
            created.push(relation);
        }
    }
    Ok(created)
}

/// The id of the entity named `name`.
fn entity_id(tx: &Transaction<'_>, name: &str) -> Result<Option<i64>, StoreError> {
    Ok(tx.query_row("SELECT id FROM entities WHERE name = ?1", params![name], |row| row.get(0)).optional()?)
}

/// Adds `contents` to entity `id`; returns those it did not have.
fn add_observations(tx: &Transaction<'_>, id: i64, contents: Vec<String>) -> Result<Vec<String>, StoreError> {
    let mut added = Vec::new();
    for content in contents {
        let inserted = tx.execute(
            "INSERT INTO observations (entity_id, content) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
            params![id, content],
        )?;
        if inserted == 1 {
            added.push(content);
        }
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(name: &str, observations: &[&str]) -> Entity {
        Entity {
            name: name.into(),
            entity_type: "person".into(),
            observations: observations.iter().map(|o| (*o).to_owned()).collect(),
        }
    }

    fn relation(from: &str, to: &str) -> Relation {
        Relation { from: from.into(), to: to.into(), relation_type: "knows".into() }
    }

    fn opened() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("memory.db"), 1 << 30).unwrap();
        (dir, store)
    }

    /// A database at its bound refuses what would grow it, saying so and changing nothing;
    /// a deletion makes room again.
    #[test]
    fn a_full_database_refuses_growth_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("memory.db"), 128 * 1024).unwrap();
        let big = "x".repeat(8 * 1024);
        let mut kept = 0;
        let refused = loop {
            match store.create_entities(vec![entity(&format!("e{kept}"), &[big.as_str()])]) {
                Ok(_) => kept += 1,
                Err(refused) => break refused,
            }
            assert!(kept < 100, "128 KiB held {kept} entities of 8 KiB");
        };
        assert!(refused.0.contains("database is full"), "{refused:?}");
        assert!(store.graph().unwrap().entities.len() == kept, "the refused call added nothing");
        store.delete_entities(vec!["e0".into(), "e1".into(), "e2".into()]).unwrap();
        store.create_entities(vec![entity("after", &[big.as_str()])]).expect("room again");
    }

    /// A new database (and its journal) is its owner's alone (it was created 0644).
    #[cfg(unix)]
    #[test]
    fn a_new_database_is_readable_by_its_owner_only() {
        use std::os::unix::fs::PermissionsExt as _;
        let (dir, store) = opened();
        store.create_entities(vec![entity("ada", &["wrote the first program"])]).unwrap();
        for file in ["memory.db", "memory.db-wal"] {
            let mode = std::fs::metadata(dir.path().join(file)).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{file}");
        }
    }

    #[test]
    fn a_new_database_gets_the_schema_and_a_newer_one_is_refused() {
        let (dir, store) = opened();
        drop(store);
        let path = dir.path().join("memory.db");
        let version = |path: &Path| -> i64 {
            Connection::open(path)
                .unwrap()
                .pragma_query_value(None, "user_version", |row| row.get(0))
                .unwrap()
        };
        assert_eq!(version(&path), MIGRATIONS.len() as i64);
        Store::open(&path, 1 << 30).expect("opening again migrates nothing");
        Connection::open(&path).unwrap().pragma_update(None, "user_version", 99).unwrap();
        let refused = Store::open(&path, 1 << 30).err().expect("a newer schema is refused");
        assert!(refused.contains("schema version 99, newer than this modelctx knows"), "{refused}");
    }

    #[test]
    fn names_and_triples_are_unique_and_what_exists_is_passed_over() {
        let (_dir, store) = opened();
        let created =
            store.create_entities(vec![entity("Ada", &["a", "a", "b"]), entity("Ada", &["c"])]).unwrap();
        assert_eq!(created, [entity("Ada", &["a", "b"])], "the first of a name, each observation once");
        assert!(store.create_entities(vec![entity("Ada", &["z"])]).unwrap().is_empty());
        assert_eq!(
            store.create_relations(vec![relation("Ada", "Bob"), relation("Ada", "Bob")]).unwrap().len(),
            1
        );
        assert!(store.create_relations(vec![relation("Ada", "Bob")]).unwrap().is_empty());
    }

    #[test]
    fn a_failing_call_changes_nothing() {
        let (_dir, store) = opened();
        store.create_entities(vec![entity("Ada", &[])]).unwrap();
        let additions = vec![
            ObservationAddition { entity_name: "Ada".into(), contents: vec!["new".into()] },
            ObservationAddition { entity_name: "Nobody".into(), contents: vec!["x".into()] },
        ];
        let refused = store.add_observations(additions).unwrap_err();
        assert_eq!(refused.0, "Entity with name Nobody not found");
        assert_eq!(store.graph().unwrap().entities, [entity("Ada", &[])], "Ada's addition was rolled back");
    }

    #[test]
    fn deleting_an_entity_takes_its_observations_and_relations() {
        let (_dir, store) = opened();
        store.create_entities(vec![entity("Ada", &["x"]), entity("Bob", &[]), entity("Cy", &[])]).unwrap();
        store
            .create_relations(vec![relation("Ada", "Bob"), relation("Cy", "Ada"), relation("Bob", "Cy")])
            .unwrap();
        assert!(store.delete_entities(vec!["Ada".into(), "Nobody".into()]).unwrap());
        let graph = store.graph().unwrap();
        assert_eq!(graph.entities, [entity("Bob", &[]), entity("Cy", &[])]);
        assert_eq!(graph.relations, [relation("Bob", "Cy")]);
        assert!(!store.delete_entities(vec!["Ada".into()]).unwrap(), "nothing left to delete");
        store.create_entities(vec![entity("Ada", &[])]).unwrap();
        assert_eq!(
            store.graph().unwrap().entities[2],
            entity("Ada", &[]),
            "no observation came back with the name"
        );
    }

    #[test]
    fn observations_and_relations_are_deleted_one_by_one() {
        let (_dir, store) = opened();
        store.create_entities(vec![entity("Ada", &["x", "y"])]).unwrap();
        store.create_relations(vec![relation("Ada", "Bob"), relation("Bob", "Ada")]).unwrap();
        let deletion =
            ObservationDeletion { entity_name: "Ada".into(), observations: vec!["x".into(), "q".into()] };
        assert!(store.delete_observations(vec![deletion]).unwrap());
        assert!(store.delete_relations(vec![relation("Ada", "Bob")]).unwrap());
        let graph = store.graph().unwrap();
        assert_eq!(
            (graph.entities, graph.relations),
            (vec![entity("Ada", &["y"])], vec![relation("Bob", "Ada")])
        );
    }

    #[test]
    fn an_official_jsonl_file_is_imported_once() {
        let (_dir, store) = opened();
        let jsonl = concat!(
            r#"{"type":"entity","name":"Ada","entityType":"person","observations":["x"]}"#,
            "\n\n",
            r#"{"type":"relation","from":"Ada","to":"Bob","relationType":"knows"}"#,
            "\n",
            r#"{"type":"comment","text":"passed over"}"#,
        );
        assert_eq!(store.import_jsonl(jsonl).unwrap(), (1, 1));
        assert_eq!(store.import_jsonl(jsonl).unwrap(), (0, 0), "what exists is passed over");
        assert_eq!(store.graph().unwrap().entities, [entity("Ada", &["x"])]);
        let broken = store.import_jsonl("{\"type\":\"entity\",\"name\":\"Cy\"}\nnot json").unwrap_err();
        assert!(broken.0.starts_with("line 1: missing field"), "{broken}");
        assert_eq!(store.graph().unwrap().entities.len(), 1, "a broken file imports nothing");
    }

    /// One store shared by threads (as by the requests of one HTTP server): every write is
    /// kept.
    #[test]
    fn concurrent_calls_lose_nothing() {
        let (_dir, store) = opened();
        let store = std::sync::Arc::new(store);
        store.create_entities(vec![entity("Ada", &[])]).unwrap();
        let writers: Vec<_> = (0..8)
            .map(|writer| {
                let store = store.clone();
                std::thread::spawn(move || {
                    for n in 0..25 {
                        let contents = vec![format!("{writer}-{n}")];
                        let addition = ObservationAddition { entity_name: "Ada".into(), contents };
                        store.add_observations(vec![addition]).unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        assert_eq!(store.graph().unwrap().entities[0].observations.len(), 200);
    }
}
