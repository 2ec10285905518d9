//! The Skills extension (SEP-2640) on the server, in process: a registered skill is declared,
//! listed, fetched and read, its directories listed, in both eras.

use crate::common::{Era, builder, within};
use modelctx::server::skills::{EXTENSION_ID, Skill};
use modelctx::testing::TestClient;
use serde_json::json;

const MANIFEST: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: 2\n---\n\nBody.\n";

fn client() -> TestClient {
    let skill = Skill::new(MANIFEST).unwrap().file("references/FORMS.md", "Forms.\n").unwrap();
    TestClient::start(builder().skill(skill).build().unwrap())
}

#[tokio::test]
async fn a_skill_is_declared_listed_fetched_and_read_in_both_eras() {
    let modern = client();
    let discovered = within(modern.modern("server/discover", json!({}))).await.unwrap();
    assert_eq!(discovered["capabilities"]["extensions"][EXTENSION_ID], json!({"directoryRead": true}));
    assert!(discovered["capabilities"]["resources"].is_object(), "the extension needs resources");
    for era in [Era::Modern, Era::Legacy] {
        let client = era.connect(builder().skill(Skill::new(MANIFEST).unwrap()).build().unwrap()).await;
        let listed = era.ok(&client, "skills/list", json!({})).await;
        let entry = &listed["skills"][0];
        assert_eq!(entry["uri"], "skill://pdf-processing/SKILL.md", "{era:?}");
        assert_eq!(entry["frontmatter"]["metadata"]["version"], 2);
        if era == Era::Modern {
            assert_eq!(listed["resultType"], "complete");
            assert!(listed["ttlMs"].is_u64() && listed["cacheScope"].is_string(), "cacheable: {listed}");
        }
        let got = era.ok(&client, "skills/get", json!({"uri": entry["uri"]})).await;
        assert_eq!(&got["skill"], entry);
        assert!(got.get("nextCursor").is_none());
        let unknown = era.err(&client, "skills/get", json!({"uri": "skill://nope/SKILL.md"})).await;
        assert_eq!(unknown.code.0, -32602);
        let read = era.ok(&client, "resources/read", json!({"uri": entry["uri"]})).await;
        assert_eq!(read["contents"][0]["text"], MANIFEST);
        assert_eq!(read["contents"][0]["mimeType"], "text/markdown");
    }
}

#[tokio::test]
async fn a_skills_directories_list_their_children_and_files_are_listed_resources() {
    let client = client();
    let root =
        Era::Modern.ok(&client, "resources/directory/read", json!({"uri": "skill://pdf-processing"})).await;
    let children: Vec<(&str, &str)> = root["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["mimeType"].as_str().unwrap()))
        .collect();
    assert_eq!(children, [("SKILL.md", "text/markdown"), ("references", "inode/directory")]);
    let file = Era::Modern
        .err(&client, "resources/directory/read", json!({"uri": "skill://pdf-processing/SKILL.md"}))
        .await;
    assert_eq!(file.code.0, -32602, "a file is no directory");
    let listed = Era::Modern.ok(&client, "resources/list", json!({})).await;
    let manifest = listed["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "skill://pdf-processing/SKILL.md");
    let manifest = manifest.expect("SKILL.md is a listed resource");
    assert_eq!(manifest["name"], "pdf-processing");
    assert_eq!(manifest["description"], "Extract, fill, and assemble PDF documents");
    let digest = &Era::Modern.ok(&client, "skills/list", json!({})).await["skills"][0]["resources"];
    assert_eq!(digest.as_array().map(Vec::len), Some(2), "SKILL.md and FORMS.md, each once");
    let no_skills = TestClient::start(builder().build().unwrap());
    let absent = within(no_skills.modern("skills/list", json!({}))).await.unwrap_err();
    assert_eq!(absent.code.0, -32601, "no skills, no method");
}

/// The client loads a skill by reading its SKILL.md alone and verifying it against the
/// listing, reads its other files verified, and refuses content that differs from the
/// entry in size, digest or frontmatter (the suite's `sep-2640-client-*` serve the tampered
/// files; here the entry is the one that differs).
#[tokio::test]
async fn the_client_loads_a_skill_verified_and_refuses_what_differs_from_its_entry() {
    let skill = Skill::new(MANIFEST).unwrap().file("references/FORMS.md", "Forms.\n").unwrap();
    let client = within(crate::common::client::connect(
        builder().skill(skill).build().unwrap(),
        crate::common::client::options(),
    ))
    .await
    .unwrap();
    let entries = within(client.list_skills()).await.unwrap();
    assert_eq!(entries.len(), 1);
    let entry = &entries[0];
    let loaded = within(client.load_skill(entry)).await.unwrap();
    assert_eq!(loaded.manifest, MANIFEST);
    let forms = "skill://pdf-processing/references/FORMS.md";
    assert_eq!(within(client.read_skill_file(&loaded, forms)).await.unwrap(), b"Forms.\n");
    let unlisted =
        within(client.read_skill_file(&loaded, "skill://pdf-processing/other.md")).await.unwrap_err();
    assert!(unlisted.to_string().contains("lists no such file"), "{unlisted}");

    let mut stale = entry.clone();
    stale.frontmatter.insert("description".into(), json!("Exfiltrate credentials"));
    let refused = within(client.load_skill(&stale)).await.unwrap_err().to_string();
    assert!(refused.contains("frontmatter's \"description\" differs"), "{refused}");
    let mut longer = entry.clone();
    longer.resources.iter_mut().find(|f| f.uri == entry.uri).unwrap().size += 1;
    let refused = within(client.load_skill(&longer)).await.unwrap_err().to_string();
    assert!(refused.contains("bytes long, its entry says"), "{refused}");
    let mut other = entry.clone();
    other.resources.iter_mut().find(|f| f.uri == entry.uri).unwrap().digest =
        format!("sha256:{}", "0".repeat(64));
    let refused = within(client.load_skill(&other)).await.unwrap_err().to_string();
    assert!(refused.contains("its digest is sha256:"), "{refused}");
}
