(function(){
'use strict';
var doc=JSON.parse(document.getElementById('replay-data').textContent);
var frames=doc.frames, n=frames.length, cur=0;
var $=function(id){return document.getElementById(id);};
function el(tag,text,cls){var e=document.createElement(tag);if(text!==undefined){e.textContent=String(text);}if(cls){e.className=cls;}return e;}
var view=$('view');
// the selector: every seat's hidden part, none, or one seat's (only the seats the file holds)
var held=doc.view_seats;
function addOpt(value,label){var o=el('option',label);o.value=value;view.appendChild(o);}
if(held.length===doc.seats.length&&held.length>1){addOpt('all','all seats (everything hidden shown)');}
function who(s){return 'seat '+s+' ('+doc.seats[s]+')';}
held.forEach(function(s){addOpt(String(s),'as '+who(s)+' sees it');});
addOpt('none','public only (nothing hidden)');
function shownSeats(){var v=view.value;if(v==='all'){return held.slice();}if(v==='none'){return [];}return [parseInt(v,10)];}
var log=$('log');
frames.forEach(function(f,i){var li=el('li');li.appendChild(el('span',i===0?'start':(f.turn>0?'t'+f.turn:'·'),'n'));
  li.appendChild(document.createTextNode(f.text));li.addEventListener('click',function(){go(i);});log.appendChild(li);});
var slider=$('slider');slider.max=String(n-1);
function go(i){cur=Math.max(0,Math.min(n-1,i));render();}
function render(){
  var f=frames[cur], seats=shownSeats();
  var box=$('boardbox');while(box.firstChild){box.removeChild(box.firstChild);}
  try{box.appendChild(window.StonelabBoard.draw(doc,f,seats));}
  catch(e){box.appendChild(el('p','the board cannot be drawn: '+e));if(window.console){console.error(e);}}
  $('step').textContent='step '+cur+' of '+(n-1)+turnWord(f);
  $('text').textContent=f.text;
  var notes=$('notes');while(notes.firstChild){notes.removeChild(notes.firstChild);}
  seats.forEach(function(s){var h=f.hidden[String(s)];if(h&&h.note){notes.appendChild(el('div',who(s)+', hidden from the others: '+h.note,'note'));}});
  slider.value=String(cur);
  $('prev').disabled=$('first').disabled=cur===0;$('next').disabled=$('last').disabled=cur===n-1;
  var items=log.children;for(var k=0;k<items.length;k++){items[k].className=k===cur?'cur':'';}
  var li=items[cur];if(li){var top=li.offsetTop-log.offsetTop;if(top<log.scrollTop||top>log.scrollTop+log.clientHeight-20){log.scrollTop=top-40;}}
}
$('first').addEventListener('click',function(){go(0);});
$('prev').addEventListener('click',function(){go(cur-1);});
$('next').addEventListener('click',function(){go(cur+1);});
$('last').addEventListener('click',function(){go(n-1);});
slider.addEventListener('input',function(){go(parseInt(slider.value,10));});
view.addEventListener('change',render);
// any number is accepted and clamped to the game's turns (the field has no min or max: the
// browser's validation bubble stopped an out-of-range number and did nothing)
$('jump').addEventListener('submit',function(ev){ev.preventDefault();var t=Math.round(parseFloat($('turn').value));
  if(Number.isNaN(t)){return;}var last=frames[n-1].turn;t=Math.max(0,Math.min(t,last));$('turn').value=String(t);
  var i=-1;for(var k=0;k<n;k++){if(frames[k].turn>=t){i=k;break;}}go(i<0?n-1:i);});
document.addEventListener('keydown',function(ev){if(ev.target&&ev.target.tagName==='INPUT'){return;}
  if(ev.key==='ArrowRight'){go(cur+1);}else if(ev.key==='ArrowLeft'){go(cur-1);}else if(ev.key==='Home'){go(0);}else if(ev.key==='End'){go(n-1);}});
var tn=doc.setup.turn_name||'turn';$('turnlabel').textContent='jump to '+tn+' ';
function turnWord(f){return f.turn>0?' \u00b7 '+tn+' '+f.turn:'';}
var tb=$('seats');doc.seats.forEach(function(label,s){var tr=el('tr');var sw=el('td','\u25cf');sw.style.color=window.seatColour(s);
  tr.appendChild(sw);tr.appendChild(el('td','seat '+s));tr.appendChild(el('td',label));tb.appendChild(tr);});
$('result').textContent=doc.result.text;
window.stonelabReplay={go:go,current:function(){return cur;},count:n};
var start=parseInt((location.hash.match(/step=(\d+)/)||[])[1],10);go(Number.isNaN(start)?0:start);
})();
