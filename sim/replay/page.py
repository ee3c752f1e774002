"""The replay page of a turn-based game: one self-contained HTML file (inline CSS and script, no
network) that steps through a replay's frames and draws each with the game's board script.

Everything embedded is escaped: the replay document is JSON in a ``<script type="application/json">``
element with ``<``, ``>``, ``&`` and U+2028/U+2029 written as ``\\u`` escapes (so no text in it can end
the element or start markup), and the page script puts every label and word in as text
(``textContent``), never as markup (docs/security.md). No I/O here.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any, Mapping

#: the replay document's format name and version (docs/replay-format.md)
FORMAT = "stonelab.turns"
VERSION = 1

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(obj: Any) -> str:
    """``obj`` as JSON that is safe inside a ``<script>`` element (see the module docstring).

    Raises:
        TypeError, ValueError: ``obj`` is not JSON-serialisable (NaN included).
    """
    text = json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return "".join(_JSON_ESCAPES.get(ch, ch) for ch in text)


def board_script(module: str, name: str) -> str:
    """The game's drawing script ``name``, a file next to the module ``module`` (package data).

    Raises:
        FileNotFoundError: no such file.
    """
    package = module.rpartition(".")[0]
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


def _inline_script(js: str) -> str:
    """A script's text made safe to inline: ``</script`` cannot occur in it (a drawing script
    is ours, but a closing tag in one of its strings would end the element)."""
    return js.replace("</", "<\\/")


_CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#222;background:#fafaf7}
header{padding:.6em 1em;background:#2d3a2e;color:#f4f1e8}
header h1{font-size:1.15em;margin:0}header .sub{font-size:.85em;opacity:.85}
main{display:flex;flex-wrap:wrap;gap:1em;padding:1em}
#boardbox{flex:1 1 600px;min-width:320px;background:#fff;border:1px solid #ddd;border-radius:6px;padding:.5em}
#boardbox svg{width:100%;height:auto;display:block}
aside{flex:0 1 360px;min-width:280px}
.controls{display:flex;flex-wrap:wrap;gap:.4em;align-items:center;margin-bottom:.6em}
.controls button{font-size:1em;padding:.25em .7em;border:1px solid #999;border-radius:4px;background:#f4f4f4;cursor:pointer}
.controls button:disabled{opacity:.4;cursor:default}
.controls input[type=range]{flex:1 1 100%}
.controls input[type=number]{width:5em}
#step{font-variant-numeric:tabular-nums}
#text{background:#f3f7fb;border-left:4px solid #0072B2;padding:.5em .7em;margin:.4em 0;min-height:3em}
.note{background:#fff8e6;border-left:4px solid #E69F00;padding:.3em .7em;margin:.3em 0;font-size:.92em}
#log{max-height:340px;overflow-y:auto;font-size:.85em;border:1px solid #ddd;border-radius:4px;background:#fff;margin:0;padding:0;list-style:none}
#log li{padding:2px 6px;cursor:pointer;border-bottom:1px solid #f0f0f0}
#log li.cur{background:#dbe9f7}
#log li .n{color:#888;display:inline-block;min-width:3.2em}
.result{font-size:.9em;margin:.5em 0}
label{font-size:.9em}
table.seats{border-collapse:collapse;font-size:.85em;margin:.4em 0}
table.seats td,table.seats th{border:1px solid #ddd;padding:2px 6px;text-align:left}
"""

_SHELL_JS = r"""
(function(){
'use strict';
var SVGNS='http://www.w3.org/2000/svg';
// the drawing scripts' helpers: attributes and text are set as values, never parsed as markup
window.svg=function(tag,attrs,parent){var e=document.createElementNS(SVGNS,tag);
  if(attrs){for(var k in attrs){if(Object.prototype.hasOwnProperty.call(attrs,k)&&attrs[k]!==null&&attrs[k]!==undefined){e.setAttribute(k,String(attrs[k]));}}}
  if(parent){parent.appendChild(e);}return e;};
window.svgText=function(x,y,text,attrs,parent){var a={x:x,y:y};if(attrs){for(var k in attrs){a[k]=attrs[k];}}
  var t=window.svg('text',a,parent);t.textContent=String(text);return t;};
window.SEAT_COLOURS=['#0072B2','#D55E00','#009E73','#CC79A7','#E69F00'];
window.seatColour=function(s){return s>=0?window.SEAT_COLOURS[s%window.SEAT_COLOURS.length]:'#888';};
})();
"""

_PAGE_JS = r"""
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
$('jump').addEventListener('submit',function(ev){ev.preventDefault();var t=parseInt($('turn').value,10);
  if(isNaN(t)){return;}var i=-1;for(var k=0;k<n;k++){if(frames[k].turn>=t){i=k;break;}}go(i<0?n-1:i);});
document.addEventListener('keydown',function(ev){if(ev.target&&ev.target.tagName==='INPUT'){return;}
  if(ev.key==='ArrowRight'){go(cur+1);}else if(ev.key==='ArrowLeft'){go(cur-1);}else if(ev.key==='Home'){go(0);}else if(ev.key==='End'){go(n-1);}});
$('turn').max=String(frames[n-1].turn);
var tn=doc.setup.turn_name||'turn';$('turnlabel').textContent='jump to '+tn+' ';
function turnWord(f){return f.turn>0?' \u00b7 '+tn+' '+f.turn:'';}
var tb=$('seats');doc.seats.forEach(function(label,s){var tr=el('tr');var sw=el('td','\u25cf');sw.style.color=window.seatColour(s);
  tr.appendChild(sw);tr.appendChild(el('td','seat '+s));tr.appendChild(el('td',label));tb.appendChild(tr);});
$('result').textContent=doc.result.text;
window.stonelabReplay={go:go,current:function(){return cur;},count:n};
var start=parseInt((location.hash.match(/step=(\d+)/)||[])[1],10);go(isNaN(start)?0:start);
})();
"""


def board_helpers_js() -> str:
    """The helpers every drawing script uses (``svg``, ``svgText``, ``seatColour``): the script
    that must run before a game's ``replay_board.js`` (also on the play page)."""
    return _SHELL_JS


def render_page(doc: Mapping[str, Any], board_js: str) -> str:
    """The whole replay page for the replay document ``doc`` (``title``, ``subtitle``, ``seats``,
    ``view_seats``, ``result.text``, ``frames``: docs/replay-format.md) drawn by ``board_js``.

    Raises:
        TypeError, ValueError: ``doc`` is not JSON-serialisable.
    """
    def esc(text: str) -> str:
        # line and paragraph separators as references too: harmless in HTML text, but nothing of a
        # label should reach the page as written
        return html.escape(text).replace("\u2028", "&#x2028;").replace("\u2029", "&#x2029;")

    title = str(doc.get("title", "replay"))
    sub = str(doc.get("subtitle", ""))
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; script-src 'unsafe-inline'; "
        "style-src 'unsafe-inline'; img-src data:\">"
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>"
        f"<header><h1>{esc(title)}</h1><div class='sub'>{esc(sub)}</div></header><main>"
        "<div id='boardbox'></div><aside>"
        "<div class='controls'><button id='first' title='first step (Home)'>&#xAB;</button>"
        "<button id='prev' title='step back (&#x2190;)'>&#x25C0;</button>"
        "<button id='next' title='step forward (&#x2192;)'>&#x25B6;</button>"
        "<button id='last' title='last step (End)'>&#xBB;</button><span id='step'></span>"
        "<input id='slider' type='range' min='0' value='0' aria-label='step'>"
        "<form id='jump'><label><span id='turnlabel'>jump to turn </span><input id='turn' type='number' min='0' value='1'></label> "
        "<button type='submit'>go</button></form></div>"
        "<label>hidden information: <select id='view'></select></label>"
        "<div id='text' aria-live='polite'></div><div id='notes'></div>"
        "<table class='seats'><tbody id='seats'></tbody></table><div class='result' id='result'></div>"
        "<ol id='log'></ol></aside></main>"
        f"<script type='application/json' id='replay-data'>{script_json(doc)}</script>"
        f"<script>{_inline_script(_SHELL_JS)}</script>"
        f"<script>{_inline_script(board_js)}</script>"
        f"<script>{_inline_script(_PAGE_JS)}</script>"
        "</body></html>\n"
    )
