// Stonehenge Rocks!: the concert venue of a replay frame (sim/rocks/replay.py makes the frames).
// The altar stone (the stage) in the middle, the horseshoe of box seats (bluestones) around it, the
// five trilithons around those, the 30 festival spaces on the outer ring (clockwise, space 1 right
// of the souvenir stand at the top), the fans in seat colours, the security guard, and below each
// seat's pile, T-shirts, points and hand.
(function(){
'use strict';
var W = 940, CX = 470, CY = 440, R_SPACE = 340, R_TRI = 205, R_BOX = 120;
function polar(r, deg){ var t = deg * Math.PI / 180; return [CX + r * Math.cos(t), CY + r * Math.sin(t)]; }
function spaceAngle(k, n){ return -90 + k * 360 / (n + 1); }   // slot 0 (the top) is the souvenir stand

function draw(doc, frame, seats){
  var st = doc.setup, b = frame.board, nSeats = doc.seats.length, last = b.last || {};
  var H = 900 + nSeats * 46;
  var root = svg('svg', {viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'the Rocks! venue'});
  svg('rect', {x: 0, y: 0, width: W, height: H, fill: '#eef1e4'}, root);
  svg('circle', {cx: CX, cy: CY, r: R_SPACE + 62, fill: '#dfe6cf', stroke: '#b9c4a2', 'stroke-width': 2}, root);
  svg('circle', {cx: CX, cy: CY, r: R_TRI + 50, fill: '#d2dcbd', stroke: '#b9c4a2'}, root);
  // the souvenir stand between space 30 and space 1
  var ss = polar(R_SPACE, -90);
  svg('rect', {x: ss[0] - 34, y: ss[1] - 22, width: 68, height: 44, rx: 6, fill: '#f7e1b5', stroke: '#b58a3c', 'stroke-width': 2}, root);
  svgText(ss[0], ss[1] - 4, 'souvenir', {'text-anchor': 'middle', 'font-size': 12, fill: '#6b4e16'}, root);
  svgText(ss[0], ss[1] + 11, 'stand', {'text-anchor': 'middle', 'font-size': 12, fill: '#6b4e16'}, root);
  // the altar stone: the stage
  svg('rect', {x: CX - 34, y: CY - 12, width: 68, height: 24, rx: 3, fill: '#8d8d8d', stroke: '#555'}, root);
  svgText(CX, CY + 34, 'altar stone (the band)', {'text-anchor': 'middle', 'font-size': 12, fill: '#555'}, root);
  // box seats: a horseshoe of bluestones, filled by seat in order (the rules count seats, not which stone)
  var fill = [];
  for (var s = 0; s < nSeats; s++) { for (var k = 0; k < b.box[s]; k++) { fill.push(s); } }
  for (var i = 0; i < st.box_seats; i++) {
    var deg = 150 + 240 * (st.box_seats > 1 ? i / (st.box_seats - 1) : 0.5);
    var q = polar(R_BOX, deg), who = i < fill.length ? fill[i] : -1;
    svg('ellipse', {cx: q[0], cy: q[1], rx: 10, ry: 13, transform: 'rotate(' + (deg + 90) + ' ' + q[0] + ' ' + q[1] + ')',
                    fill: who >= 0 ? seatColour(who) : '#a9bcd6', stroke: who >= 0 ? '#222' : '#6f86a6',
                    'stroke-width': who >= 0 ? 2 : 1}, root);
  }
  svgText(CX, CY + 56, 'box seats ' + fill.length + ' of ' + st.box_seats + ' taken',
          {'text-anchor': 'middle', 'font-size': 12, fill: '#3d5578'}, root);
  // the trilithons: two uprights and a lintel each, coloured by the seat that claimed it
  var owner = {};
  for (var s2 = 0; s2 < nSeats; s2++) { if (b.tri_id[s2] > 0) { owner[b.tri_id[s2]] = s2; } }
  for (var t = 1; t <= st.trilithons; t++) {
    var dg = 150 + 240 * (st.trilithons > 1 ? (t - 1) / (st.trilithons - 1) : 0.5), p = polar(R_TRI, dg);
    var g = svg('g', {transform: 'translate(' + p[0] + ' ' + p[1] + ') rotate(' + (dg + 90) + ')'}, root);
    var o = owner[t], col = o !== undefined ? seatColour(o) : '#9a9486';
    svg('rect', {x: -26, y: -4, width: 12, height: 26, fill: col, stroke: '#333'}, g);
    svg('rect', {x: 14, y: -4, width: 12, height: 26, fill: col, stroke: '#333'}, g);
    svg('rect', {x: -32, y: -14, width: 64, height: 11, fill: col, stroke: '#333'}, g);
    var lp = polar(R_TRI - 44, dg);
    svgText(lp[0], lp[1] + 5, o !== undefined ? b.tri[o] + (b.tri[o] === 1 ? ' fan' : ' fans') : 'T' + t,
            {'text-anchor': 'middle', 'font-size': 13, 'font-weight': o !== undefined ? 'bold' : 'normal',
             fill: o !== undefined ? seatColour(o) : '#6f6a5e'}, root);
    if (last.tri === t) { svg('rect', {x: -38, y: -20, width: 76, height: 48, fill: 'none', stroke: '#f0b400', 'stroke-width': 4}, g); }
  }
  // the festival area: 30 spaces clockwise, fans stacked outwards, the guard on its space
  for (var sp = 1; sp <= st.spaces; sp++) {
    var a = spaceAngle(sp, st.spaces), c = polar(R_SPACE, a);
    var mark = last.to === sp || last.from === sp;
    svg('circle', {cx: c[0], cy: c[1], r: 21, fill: b.guard === sp ? '#333' : '#fbfaf3',
                   stroke: mark ? '#f0b400' : '#8d9a74', 'stroke-width': mark ? 4 : 1.5}, root);
    svgText(c[0], c[1] + 6, sp, {'text-anchor': 'middle', 'font-size': 16, 'font-weight': 'bold',
            fill: b.guard === sp ? '#fff' : '#4b5631'}, root);
    var ring = 0;
    for (var s3 = 0; s3 < nSeats; s3++) {
      var cnt = b.fans[s3][sp];
      if (!cnt) { continue; }
      var f = polar(R_SPACE - 38 - ring * 24, a);
      svg('circle', {cx: f[0], cy: f[1], r: 11, fill: seatColour(s3), stroke: '#222', 'stroke-width': 1}, root);
      if (cnt > 1) { svgText(f[0], f[1] + 5, cnt, {'text-anchor': 'middle', 'font-size': 13, 'font-weight': 'bold', fill: '#fff'}, root); }
      ring++;
    }
    if (b.guard === sp) {
      var gp = polar(R_SPACE + 40, a);
      // the security guard: a figure outside its space
      svg('circle', {cx: gp[0], cy: gp[1] - 12, r: 7, fill: '#222'}, root);
      svg('path', {d: 'M' + (gp[0] - 10) + ' ' + (gp[1] + 12) + ' L' + gp[0] + ' ' + (gp[1] - 6) + ' L' + (gp[0] + 10) + ' ' + (gp[1] + 12) + ' Z',
                   fill: '#222'}, root);
    }
  }
  // the seats: pile, T-shirts, seated fans, points, hand
  var y0 = 860;
  svgText(20, y0 - 14, 'guard on space ' + b.guard + ' · draw pile ' + b.draw + ' cards · discard pile ' + b.discard + ' cards' +
          (b.reshuffles ? ' · reshuffled ' + b.reshuffles + '×' : '') + ' · turns played ' + b.turn + ' · first to ' + st.target + ' points wins',
          {'font-size': 13, fill: '#444'}, root);
  for (var s4 = 0; s4 < nSeats; s4++) {
    var y = y0 + 14 + s4 * 46;
    if (b.to === s4) { svg('rect', {x: 8, y: y - 20, width: W - 16, height: 42, rx: 5, fill: '#fff7d6'}, root); }
    svg('circle', {cx: 24, cy: y - 4, r: 9, fill: seatColour(s4)}, root);
    svgText(40, y, doc.seats[s4], {'font-size': 14, 'font-weight': b.to === s4 ? 'bold' : 'normal'}, root);
    svgText(40, y + 17, b.points[s4] + ' points: ' + b.box[s4] + ' box, ' + b.tri[s4] + ' trilithon, ' + b.shirts[s4] +
            ' T-shirts · pile ' + b.fans[s4][0] + ' fans · guard removed ' + b.removed[s4], {'font-size': 12, fill: '#444'}, root);
    var hid = frame.hidden[String(s4)], hx = 560;
    if (seats.indexOf(s4) >= 0 && hid && hid.hand) {
      svgText(hx - 8, y + 6, 'hand', {'text-anchor': 'end', 'font-size': 12, fill: '#444'}, root);
      hid.hand.forEach(function(cd, k){
        svg('rect', {x: hx + k * 36, y: y - 14, width: 30, height: 36, rx: 4, fill: cd === 'T' ? '#e9dcc0' : '#fff',
                     stroke: seatColour(s4), 'stroke-width': 2}, root);
        svgText(hx + k * 36 + 15, y + 10, cd, {'text-anchor': 'middle', 'font-size': 15, 'font-weight': 'bold'}, root);
      });
    } else {
      svgText(hx, y + 6, b.hand_sizes[s4] + ' cards in hand (hidden)', {'font-size': 12, fill: '#777'}, root);
    }
  }
  return root;
}
window.StonelabBoard = {draw: draw};
})();
