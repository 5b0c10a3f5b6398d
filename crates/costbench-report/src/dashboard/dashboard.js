// The dashboard: one chart per series, drawn from the embedded data (see data.rs for its
// shape), and the filters over the charts, the change points and the drift rows. Plain ES5,
// no library, nothing fetched. Every string from the data reaches the page as text (esc() for
// the SVG markup, textContent elsewhere).
//
// Charts are drawn a slice at a time so that the page shows and scrolls while a thousand-run
// history draws; each chart is a handful of elements (one path for the line, one for the dots),
// not one per point, and the tooltip finds the run under the pointer itself. When all are
// drawn, <body data-drawn="N"> says how many; an error goes into <body data-error>.
(function () {
  'use strict';
  var body = document.body;
  function fail(msg) {
    var was = body.getAttribute('data-error');
    body.setAttribute('data-error', (was ? was + '\n' : '') + msg);
  }
  window.addEventListener('error', function (e) { fail(String(e.message)); });

  var D;
  try {
    D = JSON.parse(document.getElementById('dashboard-data').textContent);
  } catch (e) {
    fail('the embedded data does not parse: ' + e.message);
    return;
  }
  if (D.schema !== 'costbench-dashboard' || D.version !== 1) {
    fail('data of another version: ' + D.schema + ' ' + D.version);
    return;
  }
  var runs = D.runs, series = D.series, changes = D.changes, metrics = D.metrics;
  var N = runs.length;
  var several = { machines: D.machines.length > 1, variants: D.variants.length > 1 };

  function byId(id) { return document.getElementById(id); }
  function all(sel) { return Array.prototype.slice.call(document.querySelectorAll(sel)); }
  var ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
  function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return ENTITIES[c]; }); }

  // Figures as the page's HTML writes them (fmt_ir_grouped): whole numbers from 1000 up, else
  // two or three decimals; thousands separated by commas.
  function grouped(digits) { return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
  function full(v) {
    if (v === null || !isFinite(v)) return '–';
    var a = Math.abs(v);
    var s = a >= 1000 ? a.toFixed(0) : a >= 10 ? a.toFixed(2) : a.toFixed(3);
    var p = s.split('.');
    return (v < 0 ? '-' : '') + grouped(p[0]) + (p[1] ? '.' + p[1] : '');
  }
  function pct(p) {
    if (p === null || !isFinite(p)) return '+inf %';
    return (p >= 0 ? '+' : '') + p.toFixed(2) + ' %';
  }
  function shortCommit(c, n) { return c ? c.slice(0, n || 10) : '–'; }
  function runName(r, n) { return r[0] ? shortCommit(r[0], n) : 'run'; }
  function when(r) {
    var d = r[2] || r[3] || '';
    return d.slice(0, 16).replace('T', ' ');
  }

  // A series' run indices (the data holds a start, or differences).
  function runIndices(s) {
    var x = s[4], n = s[5].length, out = new Array(n), i;
    if (typeof x === 'number') {
      for (i = 0; i < n; i++) out[i] = x + i;
    } else {
      var acc = 0;
      for (i = 0; i < n; i++) { acc += x[i]; out[i] = acc; }
    }
    return out;
  }
  var changesOf = series.map(function () { return []; });
  changes.forEach(function (c, k) { if (changesOf[c[0]]) changesOf[c[0]].push(k); });

  // ---- Charts -----------------------------------------------------------------------------
  // Coordinates of every chart: the page scales the viewBox to the column, about 1:1 on a
  // wide screen so that 11px text reads as 11px.
  var W = 560, H = 236, L = 60, R = 16, T = 24, B = 44, PW = W - L - R, PH = H - T - B;
  function X(i) { return N > 1 ? L + PW * i / (N - 1) : L + PW / 2; }
  function f1(v) { return v.toFixed(1); }

  // About five round values inside [lo, hi], and the step between them.
  function ticks(lo, hi) {
    var span = hi - lo, mag = Math.pow(10, Math.floor(Math.log(span / 4) / Math.LN10));
    var steps = [1, 2, 2.5, 5, 10], step = 10 * mag;
    for (var i = 0; i < steps.length; i++) {
      if (span / (steps[i] * mag) <= 5) { step = steps[i] * mag; break; }
    }
    var out = [], t = Math.ceil(lo / step) * step;
    while (t <= hi + step * 1e-9 && out.length < 8) { out.push(t); t += step; }
    return { values: out, step: step };
  }
  // Axis labels: one scale (k, M, G) for the whole axis and as many decimals as its step needs.
  function tickLabels(tk) {
    var top = 0;
    tk.values.forEach(function (v) { top = Math.max(top, Math.abs(v)); });
    var div = 1, suffix = '';
    if (top >= 1e9) { div = 1e9; suffix = 'G'; } else if (top >= 1e6) { div = 1e6; suffix = 'M'; } else if (top >= 1e4) { div = 1e3; suffix = 'k'; }
    // Enough decimals to write the step exactly (a step of 250 on a k axis is 0.25k).
    var dec = 0, q = tk.step / div;
    while (dec < 6 && Math.abs(q - Math.round(q)) > 1e-6 * Math.max(1, q)) { q *= 10; dec++; }
    return tk.values.map(function (v) {
      var s = (v / div).toFixed(dec), p = s.split('.');
      return grouped(p[0]) + (p[1] ? '.' + p[1] : '') + suffix;
    });
  }

  var grid = byId('charts-grid');
  var figures = series.map(function (s, si) {
    var f = document.createElement('figure');
    f.className = 'series';
    f.id = 'series-' + si;
    var cap = document.createElement('figcaption');
    var b = document.createElement('b');
    b.textContent = s[0];
    cap.appendChild(b);
    var meta = [metrics[s[1]][0]];
    if (several.machines) meta.push(D.machines[s[2]]);
    if (several.variants) meta.push(D.variants[s[3]]);
    var m = document.createElement('span');
    m.className = 'meta';
    m.textContent = meta.join(' · ');
    cap.appendChild(m);
    if (changesOf[si].length) {
      var c = document.createElement('span');
      c.className = 'nchanges';
      c.textContent = changesOf[si].length + (changesOf[si].length === 1 ? ' change point' : ' change points');
      cap.appendChild(c);
    }
    var v = s[5], last = v.length ? v[v.length - 1] : null;
    var latest = document.createElement('span');
    latest.className = 'latest';
    latest.textContent = 'latest ' + full(last) + ' ' + metrics[s[1]][1];
    cap.appendChild(latest);
    var plot = document.createElement('div');
    plot.className = 'plot';
    f.appendChild(cap);
    f.appendChild(plot);
    grid.appendChild(f);
    return f;
  });

  function draw(si) {
    var s = series[si], x = runIndices(s), v = s[5], n = v.length, unit = metrics[s[1]][1];
    var plot = figures[si].lastChild;
    var lo = Infinity, hi = -Infinity, i;
    for (i = 0; i < n; i++) {
      if (v[i] === null) continue;
      if (v[i] < lo) lo = v[i];
      if (v[i] > hi) hi = v[i];
    }
    if (lo === Infinity) { plot.textContent = 'No values to draw.'; return; }
    // The values fill the height, less a margin, so that a step of a few percent shows; but
    // the window is at least ±0.5 % of the level for exact figures (a count that never moved
    // is a flat line, not one with every axis label alike) and ±3 % for noisy ones (wall time:
    // run-to-run noise of a percent does not fill the chart and look like a change).
    var mid = (lo + hi) / 2, half = (hi - lo) / 2, least = metrics[s[1]][2] ? 0.03 : 0.005;
    if (half < Math.abs(mid) * least || half === 0) half = mid !== 0 ? Math.abs(mid) * least : 1;
    half *= 1.12;
    lo = mid - half; hi = mid + half;
    if (lo < 0 && mid - half / 1.12 >= 0) { hi -= lo; lo = 0; }
    function Y(val) { return T + PH * (1 - (val - lo) / (hi - lo)); }

    var label = s[0] + ' · ' + metrics[s[1]][0];
    var o = ['<svg class="chart" viewBox="0 0 ', W, ' ', H, '" role="img" data-chart="timeline" data-series="1" data-points="', n,
      '" aria-label="', esc(label), '"><title>', esc(label), '</title>'];
    var tk = ticks(lo, hi), tl = tickLabels(tk);
    tk.values.forEach(function (t, j) {
      var y = f1(Y(t));
      o.push('<line class="grid" x1="', L, '" x2="', W - R, '" y1="', y, '" y2="', y, '"/>',
        '<text class="tick" x="', L - 6, '" y="', f1(Y(t) + 4), '" text-anchor="end">', esc(tl[j]), '</text>');
    });
    o.push('<text class="unit" x="', L - 6, '" y="', T - 10, '" text-anchor="end">', esc(unit), '</text>');
    var base = T + PH;
    o.push('<line class="axis-line" x1="', L, '" x2="', W - R, '" y1="', base, '" y2="', base, '"/>');
    // x: about one label per 90 px, the first and the last run always; commit above date.
    var k = Math.min(N, Math.max(2, Math.floor(PW / 90) + 1)), seen = {};
    for (var j = 0; j < k; j++) {
      var ri = k > 1 ? Math.round(j * (N - 1) / (k - 1)) : 0;
      if (seen[ri]) continue;
      seen[ri] = true;
      var px = X(ri), anchor = N === 1 ? 'middle' : j === 0 ? 'start' : j === k - 1 ? 'end' : 'middle';
      var tx = anchor === 'start' ? px - 2 : anchor === 'end' ? px + 2 : px;
      o.push('<line class="axis-line" x1="', f1(px), '" x2="', f1(px), '" y1="', base, '" y2="', base + 4, '"/>',
        '<text class="tick" x="', f1(tx), '" y="', base + 16, '" text-anchor="', anchor, '">', esc(runName(runs[ri], 7)), '</text>',
        '<text class="tick date" x="', f1(tx), '" y="', base + 29, '" text-anchor="', anchor, '">', esc((runs[ri][2] || runs[ri][3] || '').slice(0, 10)), '</text>');
    }

    // Change points, under the line: a dashed rule at the first run of the new level, the span
    // back to the run before it shaded when the step is not narrowed to one commit.
    var mine = changesOf[si];
    mine.forEach(function (ck) {
      var c = changes[ck], flags = c[6];
      var cls = flags & 2 ? 'ack' : c[5] === null || c[5] > 0 ? 'up' : 'down';
      var x1 = X(c[1]), x0 = X(c[2]);
      var where = flags & 1 ? 'exact commit' : 'between ' + runName(runs[c[2]]) + ' and ' + runName(runs[c[1]]);
      var title = 'Change point at ' + runName(runs[c[1]]) + ': ' + full(c[3]) + ' → ' + full(c[4]) + ' ' + unit +
        ' (' + pct(c[5]) + '), ' + where + (flags & 2 ? '; acknowledged' : '') + '. Click for details.';
      o.push('<a class="change-marker ', cls, '" href="#change-', ck, '" data-change="', ck, '"><title>', esc(title), '</title>');
      if (!(flags & 1) && x1 - x0 > 1) {
        o.push('<rect class="span" x="', f1(x0), '" y="', T, '" width="', f1(x1 - x0), '" height="', PH, '"/>');
      }
      o.push('<line class="hit" x1="', f1(x1), '" x2="', f1(x1), '" y1="', T, '" y2="', base, '"/>',
        '<line class="mark" x1="', f1(x1), '" x2="', f1(x1), '" y1="', T, '" y2="', base, '"/>');
      // The label goes where the line is not: after a step up the new level runs along the
      // top, so the label sits at the bottom, and the other way round.
      if (mine.length <= 6) {
        var right = x1 > L + PW * 0.8, up = c[5] === null || c[5] > 0;
        o.push('<text x="', f1(right ? x1 - 4 : x1 + 4), '" y="', up ? base - 6 : T + 11, '" text-anchor="', right ? 'end' : 'start', '">', esc(pct(c[5])), '</text>');
      }
      o.push('</a>');
    });

    // The line, broken where a value is missing; dots where they have room, carried-over runs
    // as rings. Each is one path: a zero-length segment with a round cap is a dot.
    var line = [], dots = [], rings = [], pen = false;
    for (i = 0; i < n; i++) {
      if (v[i] === null) { pen = false; continue; }
      var p = f1(X(x[i])) + ' ' + f1(Y(v[i]));
      line.push((pen ? 'L' : 'M') + p);
      pen = true;
      (runs[x[i]][4] ? rings : dots).push('M' + p + 'h0');
    }
    o.push('<path class="line" d="', line.join(''), '"/>');
    var spacing = n > 1 ? (X(x[n - 1]) - X(x[0])) / (n - 1) : PW;
    var r = Math.min(3, spacing * 0.3);
    if (r >= 1) {
      o.push('<path class="dots" stroke-width="', f1(2 * r), '" d="', dots.join(''), '"/>');
      if (rings.length) {
        o.push('<path class="ring" stroke-width="', f1(2 * r + 0.6), '" d="', rings.join(''), '"/>');
        if (2 * r - 2.2 > 0.8) o.push('<path class="ring-hole" stroke-width="', f1(2 * r - 2.2), '" d="', rings.join(''), '"/>');
      }
    }
    o.push('<line class="hover-x" y1="', T, '" y2="', base, '" visibility="hidden"/>',
      '<circle class="hover-dot" r="4" visibility="hidden"><title></title></circle></svg>');
    plot.innerHTML = o.join('');

    var svg = plot.firstChild, hx = svg.querySelector('.hover-x'), hd = svg.querySelector('.hover-dot');
    svg.addEventListener('mousemove', function (e) {
      var box = svg.getBoundingClientRect();
      var at = N > 1 ? ((e.clientX - box.left) * W / box.width - L) / PW * (N - 1) : 0;
      var j = nearest(x, at);
      if (j < 0 || v[j] === null) return;
      var px = f1(X(x[j])), py = f1(Y(v[j]));
      hx.setAttribute('x1', px); hx.setAttribute('x2', px); hx.setAttribute('visibility', 'visible');
      hd.setAttribute('cx', px); hd.setAttribute('cy', py); hd.setAttribute('visibility', 'visible');
      var lines = tipLines(si, x, v, j, unit);
      hd.firstChild.textContent = lines.map(function (l) { return l[0]; }).join('\n');
      showTip(e, lines);
    });
    svg.addEventListener('mouseleave', function () {
      hx.setAttribute('visibility', 'hidden');
      hd.setAttribute('visibility', 'hidden');
      tip.hidden = true;
    });
  }

  // The index of the point whose run is nearest run position `at` (fractional).
  function nearest(x, at) {
    var a = 0, b = x.length - 1;
    if (b < 0) return -1;
    while (a < b) {
      var m = (a + b) >> 1;
      if (x[m] < at) a = m + 1; else b = m;
    }
    return a > 0 && at - x[a - 1] < x[a] - at ? a - 1 : a;
  }

  var tip = byId('tooltip');
  function tipLines(si, x, v, j, unit) {
    var r = runs[x[j]], out = [];
    out.push([runName(r) + '  ·  ' + when(r) + '  ·  run ' + (x[j] + 1) + ' of ' + N, 'muted']);
    if (r[1]) out.push([r[1], '']);
    var change = '';
    if (j > 0 && v[j - 1] !== null && v[j - 1] !== 0) {
      change = '  (' + pct(100 * (v[j] / v[j - 1] - 1)) + ' from ' + runName(runs[x[j - 1]], 7) + ')';
    }
    out.push([full(v[j]) + ' ' + unit + change, 'value']);
    if (r[4]) out.push(['carried over from ' + shortCommit(r[4]) + ': the same build, not measured again', 'muted']);
    changesOf[si].forEach(function (ck) {
      var c = changes[ck];
      if (c[1] === x[j]) out.push(['change point ' + pct(c[5]) + (c[6] & 2 ? ', acknowledged' : ''), '']);
    });
    return out;
  }
  function showTip(e, lines) {
    tip.textContent = '';
    lines.forEach(function (l) {
      var d = document.createElement('div');
      if (l[1]) d.className = l[1];
      d.textContent = l[0];
      tip.appendChild(d);
    });
    tip.hidden = false;
    var w = tip.offsetWidth, h = tip.offsetHeight, px = e.clientX + 14, py = e.clientY + 14;
    if (px + w > window.innerWidth - 4) px = Math.max(4, e.clientX - w - 14);
    if (py + h > window.innerHeight - 4) py = Math.max(4, e.clientY - h - 14);
    tip.style.left = px + 'px';
    tip.style.top = py + 'px';
  }

  // ---- Filters ----------------------------------------------------------------------------
  var fId = byId('f-id'), fMetric = byId('f-metric'), fMachine = byId('f-machine');
  var fVariant = byId('f-variant'), fChanged = byId('f-changed'), fCount = byId('f-count');
  function shown(si) {
    var s = series[si], q = fId.value.trim().toLowerCase();
    if (q && s[0].toLowerCase().indexOf(q) < 0) return false;
    if (fMetric.value !== '' && s[1] !== +fMetric.value) return false;
    if (fMachine.value !== '' && s[2] !== +fMachine.value) return false;
    if (fVariant && fVariant.value !== '' && s[3] !== +fVariant.value) return false;
    return !(fChanged.checked && !changesOf[si].length);
  }
  function apply() {
    var show = series.map(function (s, si) { return shown(si); }), count = 0;
    figures.forEach(function (f, si) { f.hidden = !show[si]; if (show[si]) count++; });
    all('[data-s]').forEach(function (e) { e.hidden = !show[+e.getAttribute('data-s')]; });
    all('section.commit').forEach(function (sec) { sec.hidden = !sec.querySelector('tr[data-s]:not([hidden])'); });
    fCount.textContent = count + ' of ' + series.length + ' series';
    var filtering = count < series.length, drift = document.querySelector('table.drift');
    if (drift) drift.classList.toggle('filtering', filtering);
  }
  [fId, fMetric, fMachine, fVariant, fChanged].forEach(function (el) {
    if (!el) return;
    el.addEventListener('input', apply);
    el.addEventListener('change', apply);
  });
  // A link to something the filters hide (a chart from a change point, say) clears them.
  window.addEventListener('hashchange', function () {
    var target = document.getElementById(location.hash.slice(1));
    if (!target || !target.closest('[hidden]')) return;
    fId.value = '';
    [fMetric, fMachine, fVariant].forEach(function (el) { if (el) el.value = ''; });
    fChanged.checked = false;
    apply();
    target.scrollIntoView();
  });
  apply();

  // The drift table shows the series over budget and the largest changes; the rest unfold on
  // the button, when the table is sorted, or when a filter picks rows.
  var driftTable = document.querySelector('table.drift'), more = byId('drift-more');
  if (driftTable && more) {
    var fewer = more.textContent;
    more.addEventListener('click', function () {
      var open = driftTable.classList.toggle('all');
      more.textContent = open ? 'show fewer' : fewer;
    });
    driftTable.tHead.addEventListener('click', function () {
      driftTable.classList.add('all');
      more.textContent = 'show fewer';
    });
  }

  // ---- Drawing, a slice at a time ---------------------------------------------------------
  var next = 0, drawn = 0;
  function slice() {
    var until = Date.now() + 40;
    for (var done = 0; next < series.length && done < 16 && Date.now() <= until; done++, next++) {
      try {
        draw(next);
        drawn++;
      } catch (e) {
        fail('chart of series ' + next + ': ' + e.message);
      }
    }
    if (next < series.length) setTimeout(slice, 0);
    else body.setAttribute('data-drawn', String(drawn));
  }
  slice();
})();
