//! A skill of the Skills extension (SEP-2640): `debug-mcp-servers`, a `SKILL.md` with a
//! reference in a subdirectory, for the suite's skills scenarios and for trying hosts.

use modelctx::server::ServerBuilder;
use modelctx::server::skills::Skill;

pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    let skill = Skill::new(include_str!("skill/SKILL.md"))
        .and_then(|skill| skill.file("references/commands.md", include_str!("skill/references/commands.md")))
        .expect("the bundled skill is valid");
    builder.skill(skill)
}
