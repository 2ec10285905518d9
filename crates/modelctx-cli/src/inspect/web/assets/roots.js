// The Roots tab: the roots this page offers the server (roots/list), added and removed here;
// each change is told to a 2025-11-25 server (notifications/roots/list_changed), and a
// 2026-07-28 server asks for them with each request that needs them.
'use strict';

function showRoots(roots) {
  $('#root-list').replaceChildren(...roots.map((root) => el('li', { 'data-root': root.uri },
    el('code', { text: root.uri }), root.name ? ` (${root.name}) ` : ' ',
    el('button', { type: 'button', text: 'Remove', 'aria-label': `Remove ${root.uri}`, onclick: () => changeRoots('roots/remove', { uri: root.uri }) }))));
  if (!roots.length) $('#root-list').append(el('li', { class: 'muted', text: 'none offered' }));
}

async function changeRoots(path, body) {
  const answer = await api(path, body);
  const outcome = $('#roots-outcome');
  outcome.className = answer.error ? 'error' : 'ok';
  if (answer.error) {
    outcome.textContent = answer.error;
    return;
  }
  showRoots(answer.result.roots);
  outcome.textContent = answer.result.told
    ? 'told the server: notifications/roots/list_changed'
    : 'this server asks for the roots with each request that needs them: nothing to tell it';
}

$('#root-form').addEventListener('submit', (event) => {
  event.preventDefault();
  changeRoots('roots', { uri: $('#root-uri').value, name: $('#root-name').value });
});

startSteps.push(async () => {
  const answer = await api('roots');
  if (!answer.error) showRoots(answer.result.roots);
});
