// Sozoikum: the Stone Age table of a replay frame (sim/sozoikum/replay.py makes the frames).
// The bag, the fire with its stones and the mine's gems across the top; below, each seat's place:
// its gems, its cards, the stones it holds (their real shapes) and its last house, drawn from the
// pymunk build that judged it: every stone where it ended, coloured by role, its release outline
// dashed, a stone that fell hatched and its displacement given in cm.
(function(){
'use strict';
var W = 1000;
function shapePath(poly, sx, sy, k){
  // a stone outline (cm, y up) drawn at (sx, sy) with k pixels per cm (y flipped)
  return poly.map(function(p, i){ return (i ? 'L' : 'M') + (sx + p[0] * k).toFixed(1) + ' ' + (sy - p[1] * k).toFixed(1); }).join(' ') + ' Z';
}
function extent(poly){ var lo = 1e9, hi = -1e9, bot = 1e9, top = -1e9;
  poly.forEach(function(p){ lo = Math.min(lo, p[0]); hi = Math.max(hi, p[0]); bot = Math.min(bot, p[1]); top = Math.max(top, p[1]); });
  return {lo: lo, hi: hi, bot: bot, top: top}; }
function stoneRow(setup, ids, x, y, k, maxW, parent, colour){
  // stones side by side on a ground line at y, each labelled with its id; smaller when many
  var need = 0;
  ids.forEach(function(id){ var poly = setup.shapes[String(id)]; if (poly) { var e = extent(poly); need += (e.hi - e.lo) * k + 6; } });
  if (need > maxW) { k = k * maxW / need; }
  var cx = x;
  ids.forEach(function(id){
    var poly = setup.shapes[String(id)]; if (!poly) { return; }
    var e = extent(poly), w = (e.hi - e.lo) * k;
    if (cx + w > x + maxW) { return; }
    svg('path', {d: shapePath(poly, cx - e.lo * k, y + e.bot * k, k), fill: colour || '#a39e93', stroke: '#4d4a44', 'stroke-width': 1}, parent);
    svgText(cx + w / 2, y + 13, 's' + id, {'text-anchor': 'middle', 'font-size': 10, fill: '#555'}, parent);
    cx += w + 6;
  });
  return cx - x;
}
function gem(x, y, parent, n){
  svg('path', {d: 'M' + x + ' ' + (y - 9) + ' l8 6 l-3 10 h-10 l-3 -10 Z', fill: '#4aa3df', stroke: '#1f5f8b'}, parent);
  svgText(x + 14, y + 5, n, {'font-size': 14, 'font-weight': 'bold'}, parent);
}
function house(setup, b, x, y, w, h, parent){
  // a seat's last build: ground at y + h - 18, 10 px per cm, centred on the door
  var g = svg('g', {}, parent), ground = y + h - 22, cx = x + w / 2;
  var lo = 1e9, hi = -1e9, top = -1e9;
  b.final.concat(b.placed).forEach(function(poly){ var e = extent(poly); lo = Math.min(lo, e.lo); hi = Math.max(hi, e.hi); top = Math.max(top, e.top); });
  // pixels per cm: the whole house (released and settled) fits, at most 14
  var k = Math.min(14, (w / 2 - 14) / Math.max(Math.abs(lo), Math.abs(hi), 1), (h - 50) / Math.max(top, 1));
  svg('rect', {x: x + 4, y: ground, width: w - 8, height: 8, fill: '#b9a88c'}, g);
  svg('line', {x1: x + 4, y1: ground, x2: x + w - 4, y2: ground, stroke: '#6b5b45', 'stroke-width': 1.5}, g);
  b.final.forEach(function(_poly, i){
    var role = b.roles[i];
    svg('path', {d: shapePath(b.placed[i], cx, ground, k), fill: 'none', stroke: setup.role_colours[role],
                 'stroke-dasharray': '4 3', 'stroke-width': 1.2}, g);
  });
  b.final.forEach(function(poly, i){
    var role = b.roles[i], fell = b.fell[i];
    svg('path', {d: shapePath(poly, cx, ground, k), fill: setup.role_colours[role], 'fill-opacity': 0.9,
                 stroke: fell ? '#c00' : '#222', 'stroke-width': fell ? 2.5 : 1}, g);
    if (fell) { svg('path', {d: shapePath(poly, cx, ground, k), fill: 'url(#hatch)'}, g); }
    var e = extent(poly), mx = cx + (e.lo + e.hi) / 2 * k, my = ground - (e.bot + e.top) / 2 * k;
    svgText(mx, my + 4, role, {'text-anchor': 'middle', 'font-size': 10, fill: '#fff', 'font-weight': 'bold'}, g);
    if (fell || b.displacement[i] > 0.3) {
      svgText(mx, my + 16, b.displacement[i].toFixed(2) + ' cm', {'text-anchor': 'middle', 'font-size': 9,
              fill: fell ? '#c00' : '#222'}, g);
    }
  });
  svgText(cx, y + 14, 'house ' + b.attempt + ' (round ' + b.round + '): ' + (b.stood ? 'STANDS' : 'collapsed: ' + b.reason),
          {'text-anchor': 'middle', 'font-size': 12, 'font-weight': 'bold', fill: b.stood ? '#1b7a3a' : '#b02a1a'}, g);
}

function draw(doc, frame, seats){
  var st = doc.setup, b = frame.board, n = doc.seats.length;
  var cols = n <= 2 ? 2 : 3, rows = Math.ceil(n / cols), cw = W / cols, chh = 360;
  var H = 250 + rows * chh;
  var root = svg('svg', {viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'the Sozoikum table'});
  var defs = svg('defs', {}, root), pat = svg('pattern', {id: 'hatch', width: 6, height: 6, patternUnits: 'userSpaceOnUse',
                 patternTransform: 'rotate(45)'}, defs);
  svg('line', {x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#300', 'stroke-width': 2}, pat);
  svg('rect', {x: 0, y: 0, width: W, height: H, fill: '#efe7d6'}, root);
  // the bag (the quarry), the fire, the mine
  svg('path', {d: 'M60 80 q-30 60 10 110 h90 q40 -50 10 -110 q-20 -20 -55 -20 q-35 0 -55 20 Z', fill: '#a0804f', stroke: '#5c4522'}, root);
  svgText(115, 140, b.bag, {'text-anchor': 'middle', 'font-size': 28, 'font-weight': 'bold', fill: '#fff'}, root);
  svgText(115, 214, 'stones in the bag', {'text-anchor': 'middle', 'font-size': 12}, root);
  svg('ellipse', {cx: 500, cy: 170, rx: 190, ry: 42, fill: '#c96a2b', 'fill-opacity': 0.25, stroke: '#b5541b'}, root);
  for (var f = 0; f < 5; f++) {
    svg('path', {d: 'M' + (440 + f * 30) + ' 200 q-12 -30 6 -52 q4 22 14 28 q10 -18 4 -36 q22 26 6 60 Z', fill: f % 2 ? '#f29d38' : '#e0582a',
                 'fill-opacity': 0.8}, root);
  }
  svgText(500, 40, 'the fire: ' + b.fire.length + ' stone' + (b.fire.length === 1 ? '' : 's'), {'text-anchor': 'middle', 'font-size': 15, 'font-weight': 'bold'}, root);
  stoneRow(st, b.fire, 330, 150, 9, 340, root, '#9b958a');
  var camp = b.camp.length ? 'at the camp: ' + b.camp.map(function(s){ return 'seat ' + s; }).join(', ') : (b.cards_on ? 'nobody at the camp yet' : '');
  svgText(500, 232, camp, {'text-anchor': 'middle', 'font-size': 13, fill: '#5a3a14'}, root);
  svg('path', {d: 'M820 200 l40 -120 l40 120 Z', fill: '#7d7a73', stroke: '#45433f'}, root);
  gem(850, 170, root, b.mine);
  svgText(860, 222, 'gems in the mine', {'text-anchor': 'middle', 'font-size': 12}, root);
  svgText(500, 64, 'round ' + b.round + ' · start player seat ' + b.start + (b.rule ? ' · gathering by ' + b.rule : '') +
          (b.high >= 0 && b.phase === 'auction' ? ' · high bid ' + b.high : ''), {'text-anchor': 'middle', 'font-size': 13, fill: '#333'}, root);
  // the seats
  for (var s = 0; s < n; s++) {
    var x = (s % cols) * cw, y = 250 + Math.floor(s / cols) * chh, g = svg('g', {}, root);
    var active = frame.seat === s || b.builder === s;
    svg('rect', {x: x + 6, y: y + 4, width: cw - 12, height: chh - 10, rx: 8, fill: b.winner === s ? '#e3f4e1' : '#faf6ec',
                 stroke: active ? '#f0b400' : seatColour(s), 'stroke-width': active ? 4 : 2}, g);
    svg('circle', {cx: x + 24, cy: y + 26, r: 9, fill: seatColour(s)}, g);
    svgText(x + 40, y + 31, doc.seats[s] + (b.start === s ? '  (start player)' : ''), {'font-size': 14, 'font-weight': 'bold'}, g);
    gem(x + 28, y + 56, g, b.gems[s]);
    var cards = b.oneshots[s].split('').map(function(c){ return st.one_shot_names[c] || c; }).join(', ');
    svgText(x + 80, y + 61, 'one-shot cards: ' + (cards || 'none left'), {'font-size': 11, fill: '#444'}, g);
    var line2 = (b.played[s] && b.played[s] !== '-' ? 'played ' + (st.card_names[b.played[s]] || b.played[s]) : '') +
                (b.ann[s] !== null && b.ann[s] !== undefined ? '  announced ' + b.ann[s] : '');
    var hid = frame.hidden[String(s)];
    if (b.fists[s]) { line2 += '  fist: ' + (seats.indexOf(s) >= 0 && hid && hid.fist !== undefined ? hid.fist + ' gems' : 'hidden'); }
    if (b.phase === 'auction' || b.phase === 'reply') { b.holders.forEach(function(hd){ if (hd[0] === s) { line2 += '  bids ' + hd[1]; } }); }
    svgText(x + 20, y + 82, line2, {'font-size': 11, fill: '#7a3b00'}, g);
    svgText(x + 20, y + 104, b.reserve[s].length + (b.reserve[s].length === 1 ? ' stone' : ' stones') + (b.attempts[s] ? ' · houses tried ' + b.attempts[s] : ''),
            {'font-size': 12}, g);
    var hi = b.houses[String(s)], built = hi !== undefined && st.builds[hi].stood ? st.builds[hi].stones : [];
    // stones being laid, or in the house that stands, are not in the row of stones held
    var planned = b.builder === s ? b.plan : built;
    var rest = b.reserve[s].filter(function(id){ return planned.indexOf(id) < 0; });
    stoneRow(st, rest, x + 18, y + 158, 8, cw - 36, g);
    if (planned.length && b.builder === s) {
      svgText(x + 20, y + 182, 'laying: ' + planned.map(function(id, i){ return st.role_names[['A1', 'A2', 'B1', 'B2', 'roof'][i]] + ' s' + id; }).join(', '),
              {'font-size': 10, fill: '#333'}, g);
    }
    if (hi !== undefined) { house(st, st.builds[hi], x + 6, y + 190, cw - 12, chh - 200, g); }
    else { svgText(x + cw / 2, y + 280, 'no house built yet', {'text-anchor': 'middle', 'font-size': 12, fill: '#999'}, g); }
  }
  return root;
}
window.StonelabBoard = {draw: draw};
})();
