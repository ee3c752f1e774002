(function(){
'use strict';
var SVGNS='http://www.w3.org/2000/svg';
// the drawing scripts' helpers: attributes and text are set as values, never parsed as markup
window.svg=function(tag,attrs,parent){var e=document.createElementNS(SVGNS,tag);
  if(attrs){for(var k in attrs){if(Object.hasOwn(attrs,k)&&attrs[k]!==null&&attrs[k]!==undefined){e.setAttribute(k,String(attrs[k]));}}}
  if(parent){parent.appendChild(e);}return e;};
window.svgText=function(x,y,text,attrs,parent){var a={x:x,y:y};if(attrs){for(var k in attrs){a[k]=attrs[k];}}
  var t=window.svg('text',a,parent);t.textContent=String(text);return t;};
window.SEAT_COLOURS=['#0072B2','#D55E00','#009E73','#CC79A7','#E69F00'];
window.seatColour=function(s){return s>=0?window.SEAT_COLOURS[s%window.SEAT_COLOURS.length]:'#888';};
})();
