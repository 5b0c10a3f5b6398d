// Sortable tables: click (or Enter on) a heading to sort by that column, again to reverse.
// Cells sort by their data-v number when they have one, else by their text; cells without a
// figure (data-v="") stay last in both directions.
(function () {
  function key(td) {
    if (!td) return null;
    var v = td.getAttribute('data-v');
    if (v === '') return null;
    if (v !== null) return parseFloat(v);
    return td.textContent.trim().toLowerCase();
  }
  function sortBy(table, th, col) {
    var asc = th.getAttribute('aria-sort') !== 'ascending';
    var heads = table.tHead.rows[0].cells;
    for (var i = 0; i < heads.length; i++) heads[i].removeAttribute('aria-sort');
    th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[col]), y = key(b.cells[col]);
      if (x === null || y === null) return (x === null) - (y === null);
      var c;
      if (typeof x === 'number' && typeof y === 'number') c = x - y;
      else c = String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0;
      return asc ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  var tables = document.querySelectorAll('table.sortable');
  for (var t = 0; t < tables.length; t++) {
    (function (table) {
      var heads = table.tHead.rows[0].cells;
      for (var i = 0; i < heads.length; i++) {
        (function (th, col) {
          th.tabIndex = 0;
          th.addEventListener('click', function () { sortBy(table, th, col); });
          th.addEventListener('keydown', function (e) { if (e.key === 'Enter') sortBy(table, th, col); });
        })(heads[i], i);
      }
    })(tables[t]);
  }
})();
