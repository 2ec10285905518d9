// OAuth from the Connect tab, for a server reached by URL: the flow `modelctx login` runs, each
// HTTP exchange shown as a step with its document (secrets masked), the consent page opened by
// you in a new tab, and the tokens kept where `modelctx login` keeps them — the connection
// made next uses them.
'use strict';

function showOauthSteps(result) {
  $('#oauth-steps').replaceChildren(...result.steps.map((step) => el('li', { 'data-step': step.step },
    el('strong', { text: step.step }), ' ',
    step.method ? el('code', { text: `${step.method} ${step.url} → ${step.status}` }) : el('code', { text: step.url }),
    step.note ? el('p', { class: 'muted', text: step.note }) : null,
    step.challenge?.length ? el('p', {}, 'WWW-Authenticate: ', el('code', { text: step.challenge.join(', ') })) : null,
    step.document !== undefined && step.document !== '' ? el('details', {}, el('summary', { text: 'document' }), el('pre', { text: json(step.document) })) : null)));
  const consent = $('#oauth-consent');
  consent.hidden = !result.consent || result.done;
  if (result.consent) $('#oauth-consent-link').href = result.consent;
  const outcome = $('#oauth-outcome');
  if (result.done) {
    outcome.textContent = result.outcome || result.failure;
    outcome.className = result.failure ? 'error' : 'ok';
  }
}

$('#connect-login').addEventListener('click', async () => {
  const outcome = $('#oauth-outcome');
  outcome.className = 'muted';
  outcome.textContent = 'discovering how this server authorizes…';
  $('#oauth-box').hidden = false;
  const started = await call('/api/login', { url: $('#connect-url').value.trim() });
  if (started.error) {
    outcome.textContent = started.error;
    outcome.className = 'error';
    return;
  }
  showOauthSteps(started.result);
  if (started.result.done) return;
  outcome.textContent = 'waiting for your consent in the other tab…';
  const finished = await call(`/api/login/${started.result.flow}`);
  if (finished.error) {
    outcome.textContent = finished.error;
    outcome.className = 'error';
  } else {
    showOauthSteps(finished.result);
  }
});
