// The toy race's board: a bar filled up to the total, the target marked (tests/core/toy_replay/book.py).
(function(){
'use strict';
function draw(doc, frame, seats){
  var root = svg('svg', {viewBox: '0 0 420 60', role: 'img', 'aria-label': 'total ' + frame.board.total});
  var target = doc.setup.target, w = 400 * Math.min(frame.board.total, target) / target;
  svg('rect', {x: 10, y: 20, width: 400, height: 20, fill: '#eee', stroke: '#999'}, root);
  svg('rect', {x: 10, y: 20, width: w, height: 20, fill: '#6a8'}, root);
  svgText(215, 15, 'total ' + frame.board.total + ' of ' + target, {'text-anchor': 'middle', 'font-size': 12}, root);
  return root;
}
window.StonelabBoard = {draw: draw};
})();
