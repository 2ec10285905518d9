// The Skills tab (the io.modelcontextprotocol/skills extension): the server's skills listed
// without reading a file; one chosen is loaded (its SKILL.md read and checked against its
// entry's size, digest and frontmatter), then each of its files can be read, checked too.
'use strict';

async function chooseSkill(entry) {
  const box = $('#skill-detail');
  box.hidden = false;
  $('#skill-name').textContent = entry.frontmatter?.name || entry.uri;
  $('#skill-description').textContent = entry.frontmatter?.description || '';
  $('#skill-files').replaceChildren();
  $('#skill-file').textContent = '';
  const answer = await api('skills/load', { entry });
  showAnswer($('#skill-manifest'), answer, (loaded) => [el('pre', { class: 'text', text: loaded.manifest })]);
  if (answer.error) return;
  listOf($('#skill-files'), answer.result.files, (file) => [file.uri, `${file.size} bytes · ${file.digest}`, file.uri], async (file) => {
    const read = await api('skills/file', { entry, uri: file.uri });
    showAnswer($('#skill-file'), read, (shown) => [el('div', { class: 'kind', text: `${shown.uri} · verified` }),
      el('pre', { class: 'text', text: shown.text ?? `${shown.size} bytes, not shown as text` })]);
  });
}

startSteps.push(async (session, capabilities) => {
  if (!(capabilities.extensions || {})['io.modelcontextprotocol/skills']) return;
  $('#skills-none').hidden = true;
  const answer = await api('skills');
  if (answer.error) $('#skill-list').replaceChildren(el('li', { class: 'error', text: answer.error }));
  else listOf($('#skill-list'), answer.result, (s) => [s.frontmatter?.name || s.uri, s.frontmatter?.description, s.uri], chooseSkill);
});
