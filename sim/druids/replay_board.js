// Knizia's Stonehenge: the druid board of a replay frame (sim/druids/replay.py makes the frames).
// The triangle of 18 points, its 15 lines with a megalith slot at one end of each (rows on the
// right, the lines parallel to the left side at the bottom, those parallel to the right side at
// the left), the stones in seat colours with their values, and each seat's hand below.
(function(){
'use strict';
var S = 92;                       // pixels per grid unit
var OX = 4.6 * S, OY = 0.9 * S;   // where grid point (0, 0) is drawn
function px(p){ return [OX + p[0] * S, OY - p[1] * S]; }

function slot(setup, L){
  // the megalith slot of line L: 0.85 grid units beyond the line's end point
  var pts = setup.lines[L], d = setup.line_direction[L];
  var end = d === 2 ? pts[0] : pts[pts.length - 1], nxt = d === 2 ? pts[1] : pts[pts.length - 2];
  var a = setup.points[end], b = setup.points[nxt];
  var dx = a[0] - b[0], dy = a[1] - b[1], len = Math.sqrt(dx * dx + dy * dy);
  return [a[0] + 0.85 * dx / len, a[1] + 0.85 * dy / len];
}

function valueFor(frame, seats, stone){
  // a stone's value as this view sees it: public, or its owner's hidden part when shown
  if (stone[2] > 0) { return {v: stone[2], face: 'up'}; }
  var h = frame.hidden[String(stone[1])];
  if (seats.indexOf(stone[1]) >= 0 && h && h.stones) {
    for (var i = 0; i < h.stones.length; i++) { if (h.stones[i][0] === stone[0]) { return {v: h.stones[i][1], face: 'down-seen'}; } }
  }
  return {v: 0, face: 'down'};
}

function draw(doc, frame, seats){
  var setup = doc.setup, b = frame.board;
  var root = svg('svg', {viewBox: '0 0 ' + (9.2 * S) + ' ' + (8.75 * S), role: 'img',
                         'aria-label': 'the druid board'});
  svg('rect', {x: 0, y: 0, width: 9.2 * S, height: 8.75 * S, fill: '#f6f1e3'}, root);
  // the board: the whole triangle (its corners are not points), then the lines
  var h = Math.sqrt(3) / 2 * 5;
  var tri = [[0, 0], [-2.5, -h], [2.5, -h]].map(px);
  svg('polygon', {points: tri.map(function(q){ return q.join(','); }).join(' '), fill: '#e4d9bd',
                  stroke: '#b6a57e', 'stroke-width': 2}, root);
  var owner = b.line_owner, vals = {};
  b.stones.forEach(function(st){ vals[st[0]] = {seat: st[1], val: valueFor(frame, seats, st)}; });
  setup.lines.forEach(function(pts, L){
    var a = px(setup.points[pts[0]]), z = px(setup.points[pts[pts.length - 1]]), sl = px(slot(setup, L));
    var col = owner[L] >= 0 ? seatColour(owner[L]) : '#9c8b66';
    svg('line', {x1: a[0], y1: a[1], x2: z[0], y2: z[1], stroke: col, 'stroke-width': owner[L] >= 0 ? 5 : 2.5,
                 'stroke-opacity': owner[L] >= 0 ? 0.55 : 0.8}, root);
    var near = setup.line_direction[L] === 2 ? a : z;
    svg('line', {x1: near[0], y1: near[1], x2: sl[0], y2: sl[1], stroke: '#9c8b66', 'stroke-width': 1.5,
                 'stroke-dasharray': '4 4'}, root);
    // the line's totals as this view sees them: "7:5", a face-down stone unseen counts as ?
    var t = [0, 0], unseen = [false, false];
    pts.forEach(function(p){ var s = vals[p]; if (s) { if (s.val.v) { t[s.seat] += s.val.v; } else { unseen[s.seat] = true; } } });
    if (owner[L] >= 0) {
      svg('rect', {x: sl[0] - 13, y: sl[1] - 19, width: 26, height: 38, rx: 3, fill: seatColour(owner[L]),
                   stroke: '#333', 'stroke-width': 1.5}, root);
      svgText(sl[0], sl[1] + 6, setup.line_names[L], {'text-anchor': 'middle', 'font-size': 17, 'font-weight': 'bold',
              fill: '#fff'}, root);
    } else {
      svg('circle', {cx: sl[0], cy: sl[1], r: 15, fill: '#fffdf5', stroke: '#9c8b66', 'stroke-width': 1.5,
                     'stroke-dasharray': '3 3'}, root);
      svgText(sl[0], sl[1] + 6, setup.line_names[L], {'text-anchor': 'middle', 'font-size': 16, fill: '#6d5f3f'}, root);
    }
    if (t[0] || t[1] || unseen[0] || unseen[1]) {
      var lab = svgText(sl[0], sl[1] + 34, (t[0] + (unseen[0] ? '+?' : '')) + ':' + (t[1] + (unseen[1] ? '+?' : '')),
                        {'text-anchor': 'middle', 'font-size': 13, fill: '#333'}, root);
      lab.setAttribute('aria-label', 'line ' + setup.line_names[L] + ' totals');
    }
  });
  // the points, then the stones on them
  setup.points.forEach(function(p, i){
    var q = px(p);
    svg('circle', {cx: q[0], cy: q[1], r: 24, fill: '#f9f5ea', stroke: '#9c8b66', 'stroke-width': 1.5}, root);
    svgText(q[0] - 30, q[1] - 20, setup.point_names[i], {'font-size': 13, fill: '#7a6a48', 'font-style': 'italic'}, root);
  });
  b.stones.forEach(function(st){
    var q = px(setup.points[st[0]]), v = vals[st[0]].val, col = seatColour(st[1]);
    if (b.last === st[0]) {
      svg('circle', {cx: q[0], cy: q[1], r: 33, fill: 'none', stroke: '#f0b400', 'stroke-width': 4}, root);
    }
    svg('circle', {cx: q[0], cy: q[1], r: 26, fill: v.face === 'up' ? col : '#fff', stroke: col, 'stroke-width': 4,
                   'stroke-dasharray': v.face === 'up' ? null : '5 3'}, root);
    svgText(q[0], q[1] + 9, v.v ? v.v : '?', {'text-anchor': 'middle', 'font-size': 26, 'font-weight': 'bold',
            fill: v.face === 'up' ? '#fff' : col}, root);
  });
  // below: each seat's megaliths and hand
  for (var s = 0; s < 2; s++) {
    var y = 7.3 * S + s * 0.78 * S, x0 = 0.3 * S;
    svg('circle', {cx: x0 + 10, cy: y - 5, r: 9, fill: seatColour(s)}, root);
    svgText(x0 + 26, y, doc.seats[s] + (b.to_move === s ? '  (to move)' : ''), {'font-size': 16,
            'font-weight': b.to_move === s ? 'bold' : 'normal'}, root);
    svgText(x0 + 26, y + 22, 'megaliths ' + b.megaliths[s] + ' of ' + setup.megaliths +
            (setup.match_games > 1 ? '  ·  match total ' + b.match[s] + '  ·  game ' + (b.game + 1) + ' of ' + setup.match_games : ''),
            {'font-size': 13, fill: '#444'}, root);
    var hand = b.hands ? b.hands[s] : (seats.indexOf(s) >= 0 && frame.hidden[String(s)] ? frame.hidden[String(s)].hand : null);
    var hx = 5.0 * S;
    svgText(hx - 10, y + 6, 'hand', {'text-anchor': 'end', 'font-size': 13, fill: '#444'}, root);
    if (hand) {
      hand.forEach(function(v, k){
        svg('circle', {cx: hx + 12 + k * 30, cy: y + 1, r: 13, fill: seatColour(s), stroke: '#333', 'stroke-width': 1}, root);
        svgText(hx + 12 + k * 30, y + 7, v, {'text-anchor': 'middle', 'font-size': 15, fill: '#fff', 'font-weight': 'bold'}, root);
      });
      if (!hand.length) { svgText(hx, y + 6, 'empty', {'font-size': 13, fill: '#777'}, root); }
    } else {
      svgText(hx, y + 6, b.hand_sizes[s] + ' stones, face down (hidden)', {'font-size': 13, fill: '#777'}, root);
    }
  }
  return root;
}
window.StonelabBoard = {draw: draw};
})();
