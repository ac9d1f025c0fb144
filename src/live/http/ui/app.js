// berthd's dashboard: reads the v1 API with the user's token (kept in this tab's session
// storage, or taken once from the address's #token=...) and draws the GPUs by server, the
// queue with its reasons, the running jobs, a job's page (history, logs) and the charts
// berthd draws itself. Every piece of text from berthd is put in with textContent, never
// as HTML. Refreshed every 5 s while the tab is visible.
'use strict';
(() => {
  const REFRESH_MS = 5000;
  const KEY = 'berth.token';
  const JOB_COLOURS = ['#0072B2', '#009E73', '#CC79A7', '#D55E00', '#3d4450'];
  const S = { token: null, window: 21600, paused: false, stream: 'stdout', urls: {},
              jobs: new Map(), busy: false, route: '' };
  const $ = (id) => document.getElementById(id);

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }

  // "12 s", "4.5 min", "3.2 h", "2.1 d"
  function dur(s) {
    if (!(s >= 0)) return '-';
    if (s < 120) return Math.round(s) + ' s';
    if (s < 7200) return (s / 60).toFixed(1) + ' min';
    if (s < 172800) return (s / 3600).toFixed(1) + ' h';
    return (s / 86400).toFixed(1) + ' d';
  }

  function when(us) {
    if (!us) return '-';
    const d = new Date(us / 1000);
    return d.toLocaleString();
  }

  // ---- the token ------------------------------------------------------------------------
  function takeToken() {
    // "#token=T", "#/job/4&token=T": the token is kept in the tab and left out of the address
    const parts = location.hash.replace(/^#/, '').split('&'), rest = [];
    let tok = null;
    for (const p of parts) {
      if (p.startsWith('token=')) tok = decodeURIComponent(p.slice(6));
      else if (p) rest.push(p);
    }
    if (tok !== null) {
      sessionStorage.setItem(KEY, tok);
      history.replaceState(null, '', location.pathname + '#' + (rest.join('&') || '/'));
    }
    S.token = sessionStorage.getItem(KEY);
  }

  function showLogin(message) {
    $('login').hidden = false;
    $('overview').hidden = true;
    $('job').hidden = true;
    $('login-error').textContent = message || '';
  }

  async function api(path, asBlob) {
    const r = await fetch(path, { headers: { Authorization: 'Bearer ' + S.token },
                                  cache: 'no-store', credentials: 'omit' });
    if (r.status === 401) {
      sessionStorage.removeItem(KEY);
      S.token = null;
      showLogin('berthd refused this token (401): give another.');
      throw new Error('unauthorised');
    }
    if (!r.ok) {
      let msg = r.status + ' ' + r.statusText;
      try { msg = (await r.json()).error || msg; } catch (e) { /* not JSON */ }
      const err = new Error(msg);
      err.status = r.status;
      throw err;
    }
    return asBlob ? r.blob() : (r.headers.get('Content-Type') || '').startsWith('application/json')
      ? r.json() : r.text();
  }

  // ---- the overview ----------------------------------------------------------------------
  function colourOf(id) { return JOB_COLOURS[id % JOB_COLOURS.length]; }

  function summary(nodes, jobs) {
    const s = $('cluster-summary');
    clear(s);
    const count = (st) => jobs.filter((j) => j.state === st).length;
    const busy = nodes.gpus - nodes.idle_gpus;
    const pills = [['GPUs busy', busy + ' / ' + nodes.gpus], ['running', count('running')],
                   ['pending', count('pending')], ['held', count('held')]];
    if (S.policy) pills.push(['policy', S.policy]);
    for (const [k, v] of pills) {
      const p = el('span', 'pill');
      p.append(k + ' ', el('b', null, v));
      s.append(p);
    }
  }

  function tip(e, lines) {
    const t = $('tip');
    clear(t);
    lines.forEach((l, i) => { if (i) t.append(el('br')); t.append(i ? l : el('b', null, l)); });
    t.hidden = false;
    const x = Math.min(e.clientX + 14, window.innerWidth - 350), y = e.clientY + 14;
    t.style.left = x + 'px';
    t.style.top = y + 'px';
  }

  function highlight(id, on) {
    document.querySelectorAll('.gpu[data-job="' + id + '"]').forEach((g) => g.classList.toggle('hl', on));
  }

  function gpuGrid(nodes) {
    const grid = $('gpu-grid');
    clear(grid);
    $('gpus-count').textContent = '(' + (nodes.gpus - nodes.idle_gpus) + ' of ' + nodes.gpus + ' busy)';
    const now = Date.now() * 1000;
    for (const n of nodes.nodes) {
      const box = el('div', 'server' + (n.reserved ? ' reserved' : ''));
      box.dataset.server = n.name;
      const h = el('h3', null, n.name);
      h.append(el('span', 'muted', n.gpu_type + ' · ' + n.idle_gpus + ' of ' + n.gpus + ' idle' +
                                   (n.reserved ? ' · reserved' : '') +
                                   (n.rack ? ' · rack ' + n.rack : '') +
                                   (n.block ? ' · block ' + n.block : '') +
                                   (n.nvlink ? ' · NVLink ' + n.nvlink : '')));
      box.append(h);
      const row = el('div', 'gpus');
      for (const g of n.gpu_list) {
        const c = el('span', 'gpu');
        const ids = g.jobs || [];
        let state = 'idle', label = '';
        if (n.reserved) { state = 'reserved'; label = 'res'; }
        else if (ids.length) { state = 'busy'; label = ids.length > 1 ? ids[0] + '+' : String(ids[0]); }
        else if (g.draining) { state = 'draining'; label = 'drain'; }
        c.classList.add(state);
        c.dataset.state = state;
        c.textContent = label;
        if (state === 'busy') {
          c.style.background = colourOf(ids[0]);
          c.dataset.job = String(ids[0]);
        }
        c.setAttribute('aria-label', n.name + ' GPU ' + g.index + ': ' + state +
                                     (ids.length ? ' (job ' + ids.join(', ') + ')' : ''));
        c.addEventListener('mouseenter', (e) => {
          const lines = [n.name + ' · GPU ' + g.index + ' (device ' + g.device + ')'];
          for (const id of ids) {
            const j = S.jobs.get(id);
            lines.push('job ' + id + (j ? ' · ' + j.name + ' · ' + j.user + ' · ' + j.gpus + ' GPU' +
                       (j.gpus === 1 ? '' : 's') + ' · running ' + dur((now - j.start_us) / 1e6) : ''));
            highlight(id, true);
          }
          if (!ids.length) lines.push(state === 'idle' ? 'idle' : state === 'draining'
            ? "draining: a stopped job's process still holds it" : 'reserved: nothing is placed here');
          tip(e, lines);
        });
        c.addEventListener('mouseleave', () => { $('tip').hidden = true; ids.forEach((id) => highlight(id, false)); });
        if (ids.length) {
          c.style.cursor = 'pointer';
          c.addEventListener('click', () => { location.hash = '#/job/' + ids[0]; });
        }
        row.append(c);
      }
      box.append(row);
      grid.append(box);
    }
  }

  function jobLink(id) {
    const a = el('a', null, id);
    a.href = '#/job/' + id;
    return a;
  }

  function cell(tr, v, cls) {
    const td = el('td', cls);
    if (v instanceof Node) td.append(v); else td.textContent = v;
    tr.append(td);
  }

  function tables(jobs) {
    const now = Date.now() * 1000;
    const waiting = jobs.filter((j) => j.state === 'pending' || j.state === 'held');
    const running = jobs.filter((j) => j.state === 'running');
    const qb = $('queue-table').tBodies[0], rb = $('running-table').tBodies[0];
    clear(qb);
    clear(rb);
    waiting.forEach((j, i) => {
      const tr = el('tr');
      tr.dataset.job = j.id;
      tr.dataset.state = j.state;
      cell(tr, i + 1);
      cell(tr, jobLink(j.id));
      cell(tr, j.name, 'l');
      cell(tr, j.user, 'l');
      cell(tr, j.queue || '-', 'l');
      cell(tr, j.gpu_share < 1 ? j.gpu_share : j.gpus);
      cell(tr, dur((now - j.submit_us) / 1e6));
      cell(tr, j.why || (j.state === 'held' ? 'held' : ''), 'why');
      qb.append(tr);
    });
    running.forEach((j) => {
      const tr = el('tr');
      tr.dataset.job = j.id;
      cell(tr, jobLink(j.id));
      cell(tr, j.name, 'l');
      cell(tr, j.user, 'l');
      cell(tr, j.gpu_share < 1 ? j.gpu_share : j.gpus);
      cell(tr, j.gpu_type || 'any', 'l');
      cell(tr, dur((now - j.start_us) / 1e6));
      cell(tr, j.attempt);
      tr.addEventListener('mouseenter', () => highlight(j.id, true));
      tr.addEventListener('mouseleave', () => highlight(j.id, false));
      rb.append(tr);
    });
    $('queue-count').textContent = '(' + waiting.length + ' waiting)';
    $('running-count').textContent = '(' + running.length + ')';
    $('queue-empty').hidden = waiting.length > 0;
    $('running-empty').hidden = running.length > 0;
  }

  async function charts() {
    for (const name of ['busy', 'jobs', 'util', 'wait', 'fairness']) {
      try {
        const blob = await api('/v1/charts/' + name + '?window=' + S.window, true);
        const url = URL.createObjectURL(blob);
        const img = $('chart-' + name);
        img.onload = () => { if (S.urls[name] && S.urls[name] !== url) URL.revokeObjectURL(S.urls[name]); S.urls[name] = url; img.dataset.loaded = '1'; };
        img.src = url;
      } catch (e) { if (e.message === 'unauthorised') return; }
    }
  }

  async function overview() {
    const [nodes, list] = await Promise.all([api('/v1/nodes'), api('/v1/jobs?why=1&limit=2000')]);
    S.jobs = new Map(list.jobs.map((j) => [j.id, j]));
    summary(nodes, list.jobs);
    gpuGrid(nodes);
    tables(list.jobs);
    await charts();
    document.body.dataset.ready = '1';
  }

  // ---- a job's page ------------------------------------------------------------------------
  function timeline(j) {
    const box = $('job-timeline');
    clear(box);
    const h = j.history || [];
    if (!h.length) return;
    const end = j.end_us || Date.now() * 1000, t0 = h[0].time_us, span = Math.max(end - t0, 1);
    h.forEach((e, i) => {
      const next = i + 1 < h.length ? h[i + 1].time_us : end;
      const seg = el('span', e.state);
      seg.style.flexGrow = String(Math.max(next - e.time_us, 0) / span * 1000 + 0.001);
      seg.title = e.state + ' from ' + when(e.time_us) + ' for ' + dur((next - e.time_us) / 1e6);
      box.append(seg);
    });
  }

  async function logs(id) {
    const pre = $('job-logs');
    try {
      const text = await api('/v1/jobs/' + id + '/logs?tail=16384&stream=' + S.stream);
      pre.textContent = text || '(empty)';
      pre.scrollTop = pre.scrollHeight;
    } catch (e) {
      pre.textContent = e.status === 403 ? "(only the job's owner and admins may read its logs)"
                                         : '(' + e.message + ')';
    }
  }

  async function jobPage(id) {
    const j = await api('/v1/jobs/' + id);
    $('job-title').textContent = 'Job ' + j.id + ': ' + j.name;
    const b = $('job-state');
    b.textContent = j.state;
    b.className = 'badge ' + j.state;
    $('job-why').textContent = j.why || '';
    const f = $('job-fields').tBodies[0];
    clear(f);
    const alloc = (j.allocation || []).map((a) => a.server + ' GPU ' + a.gpu + ' (' + a.type + ')').join(', ');
    const rows = [['user', j.user], ['command', (j.argv || []).join(' ')], ['folder', j.cwd],
                  ['GPUs', j.gpus + (j.gpu_type ? ' of ' + j.gpu_type : '') + (j.gpu_share < 1 ? ' (share ' + j.gpu_share + ')' : '')],
                  ['queue', j.queue || '-'], ['priority', j.priority], ['submitted', when(j.submit_us)],
                  ['started', when(j.start_us)], ['ended', when(j.end_us)], ['attempt', j.attempt],
                  ['allocation', alloc || '-'],
                  ['progress', j.progress && j.progress.step !== null ? 'step ' + j.progress.step +
                    (j.progress.metric !== null ? ', metric ' + j.progress.metric : '') : '-']];
    for (const [k, v] of rows) {
      const tr = el('tr');
      tr.append(el('th', null, k), el('td', null, v));
      f.append(tr);
    }
    timeline(j);
    const ol = $('job-history');
    clear(ol);
    for (const e of j.history || []) {
      const li = el('li');
      li.append(el('time', null, when(e.time_us)), el('b', null, e.state + ': '), e.note);
      ol.append(li);
    }
    await logs(id);
    document.body.dataset.ready = '1';
  }

  // ---- routing and refresh -----------------------------------------------------------------
  async function refresh() {
    if (!S.token || S.busy) return;
    S.busy = true;
    try {
      const m = /^#\/job\/(\d+)$/.exec(location.hash);
      $('login').hidden = true;
      $('overview').hidden = !!m;
      $('job').hidden = !m;
      if (!S.policy) { try { S.policy = (await api('/v1/policies')).current; } catch (e) { /* later */ } }
      if (m) await jobPage(Number(m[1])); else await overview();
      $('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
    } catch (e) {
      if (e.message !== 'unauthorised') $('updated').textContent = 'berthd: ' + e.message;
    } finally {
      S.busy = false;
    }
  }

  function start() {
    takeToken();
    $('login-form').addEventListener('submit', (e) => {
      e.preventDefault();
      sessionStorage.setItem(KEY, $('token').value.trim());
      $('token').value = '';
      S.token = sessionStorage.getItem(KEY);
      refresh();
    });
    $('signout').addEventListener('click', () => { sessionStorage.removeItem(KEY); S.token = null; showLogin(''); });
    $('pause').addEventListener('click', () => { S.paused = !S.paused; $('pause').textContent = S.paused ? 'Resume' : 'Pause'; });
    document.querySelectorAll('[data-window]').forEach((b) => b.addEventListener('click', () => {
      S.window = Number(b.dataset.window);
      document.querySelectorAll('[data-window]').forEach((o) => o.classList.toggle('on', o === b));
      charts();
    }));
    document.querySelectorAll('[data-stream]').forEach((b) => b.addEventListener('click', () => {
      S.stream = b.dataset.stream;
      document.querySelectorAll('[data-stream]').forEach((o) => o.classList.toggle('on', o === b));
      const m = /^#\/job\/(\d+)$/.exec(location.hash);
      if (m) logs(Number(m[1]));
    }));
    window.addEventListener('hashchange', () => { window.scrollTo(0, 0); refresh(); });
    if (!S.token) { showLogin(''); } else { refresh(); }
    setInterval(() => { if (!S.paused && !document.hidden) refresh(); }, REFRESH_MS);
  }

  start();
})();
