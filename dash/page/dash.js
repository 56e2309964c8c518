// The page's script: live updates, ages that move, the history search, and Stop and Close, each
// confirmed. It adds no markup of its own from data: every section comes from the server, where each
// value from a state file was made escape-free and escaped for HTML; the page's Content-Security-Policy
// runs this script alone. The token is the one in this page's URL: every request carries it.
(() => {
  const token = new URL(window.location.href).searchParams.get('token') ?? '';
  const live = document.getElementById('live');
  const notice = document.getElementById('notice');
  const input = document.querySelector('#search input');
  let search = input ? input.value : '';
  let offset = Number(live?.dataset.now ?? Date.now()) - Date.now();
  let source;
  let updates = 0;

  const setLive = (word, tone) => {
    if (!live) return;
    live.textContent = word;
    live.className = `pill ${tone}`;
  };

  const ageText = (ms) => {
    const s = Math.max(0, Math.floor(ms / 1000));
    if (s < 120) return `${s}s`;
    const m = Math.floor(s / 60);
    if (m < 120) return `${m}m`;
    const h = Math.floor(m / 60);
    if (h < 48) return m % 60 === 0 ? `${h}h` : `${h}h ${m % 60}m`;
    return `${Math.floor(h / 24)}d`;
  };

  /** Every `<time data-kind="ago">` as its age now; its title the local time. */
  const tick = () => {
    const now = Date.now() + offset;
    for (const time of document.querySelectorAll('time[data-kind="ago"]')) {
      const ms = Number(time.dataset.ms);
      if (!Number.isFinite(ms)) continue;
      time.textContent = `${ageText(now - ms)} ago`;
      time.title = new Date(ms).toLocaleString();
    }
  };

  const connect = () => {
    if (source) source.close();
    const query = new URLSearchParams({ token, q: search });
    source = new EventSource(`/events?${query}`);
    source.addEventListener('open', () => setLive('live', 'ok'));
    source.addEventListener('error', () => setLive('reconnecting', 'warn'));
    source.addEventListener('sections', (event) => {
      const update = JSON.parse(event.data);
      if (typeof update.now === 'number') offset = update.now - Date.now();
      for (const [id, markup] of Object.entries(update.sections)) {
        const section = document.getElementById(id);
        // The server's markup: every value in it escaped there (dash/view/html.ts).
        if (section) section.innerHTML = markup;
      }
      updates += 1;
      document.body.dataset.updates = String(updates);
      tick();
    });
  };

  const say = (text, tone) => {
    if (!notice) return;
    notice.textContent = text;
    notice.className = tone;
  };

  document.addEventListener('click', async (event) => {
    const button = event.target instanceof Element ? event.target.closest('button[data-action]') : null;
    if (!button) return;
    const { action, ref, pane, host, what } = button.dataset;
    const question =
      action === 'stop'
        ? `Stop job ${ref}?\n\n${what ?? ''}\n\nIts process group gets SIGTERM, then SIGKILL.`
        : `Close child ${what ?? ''} (pane ${pane})?\n\nIt ends now; its reply and its branch are kept.`;
    if (!window.confirm(question)) return;
    button.disabled = true;
    const body = action === 'stop' ? { ref } : { pane, host };
    try {
      const response = await fetch(`/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-dogsled-token': token },
        body: JSON.stringify(body),
      });
      const answer = await response.json().catch(() => ({ ok: false, message: response.statusText }));
      say(answer.message, answer.ok ? 'ok' : 'bad');
    } catch (error) {
      say(`${action} failed: ${error instanceof Error ? error.message : error}`, 'bad');
    } finally {
      button.disabled = false;
    }
  });

  if (input) {
    let timer;
    input.form?.addEventListener('submit', (event) => event.preventDefault());
    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (input.value === search) return;
        search = input.value;
        connect();
      }, 250);
    });
  }

  tick();
  setInterval(tick, 5000);
  connect();
})();
