// The page script of timeline.html: fits each window's SVG to the page width,
// re-lays it out for zoom (buttons, drag, Ctrl+wheel, keys, an anomaly link or
// a #a2 / #w1 hash, also on an open page), places every label so that none
// overlaps another (measured, not estimated; a label with no room hides and
// its words stay in the hover tip), the tooltip and the key filter. Plain
// browser JavaScript, inlined; the page also reads without it (html.ts draws
// a first layout itself).
import { G, niceTicks, tickLabel } from './timeline-geometry.ts';

export function timelineScript(): string {
  return `(function(){
"use strict";
var G=${JSON.stringify(G)};
${niceTicks.toString()}
${tickLabel.toString()}
var tip=document.getElementById('tip');
var wins=[].slice.call(document.querySelectorAll('section.win'));
var keyFilter='';
function st(svg){var w=+svg.dataset.w;return {a0:+svg.dataset.a0,a1:+svg.dataset.a1,v0:+svg.dataset.v0,v1:+svg.dataset.v1,mode:svg.dataset.mode,w:w,pw:w-G.labelW,top:+svg.dataset.top};}
function shown(el){return el.style.display!=='none'&&el.getAttribute('display')!=='none';}
function tw(el){try{return el.getComputedTextLength();}catch(e){return el.textContent.length*G.charW;}}
// Fit the SVG to its section: the plot grows with the window, labels keep their size.
function fit(svg){var sec=svg.closest('section.win'),w=Math.max(560,Math.floor((sec?sec.clientWidth:G.width)-2));
  if(w===+svg.dataset.w)return false;svg.dataset.w=w;svg.setAttribute('width',w);
  svg.setAttribute('viewBox','0 0 '+w+' '+svg.getAttribute('height'));
  svg.querySelectorAll('.fullw').forEach(function(r){r.setAttribute('width',w);});
  var c=svg.querySelector('.clipr');if(c)c.setAttribute('width',w-G.labelW);return true;}
function layout(svg){
  var s=st(svg),k=s.pw/(s.v1-s.v0),end=G.labelW+s.pw;
  function X(a){return G.labelW+(a-s.v0)*k;}
  svg.querySelectorAll('[data-a]').forEach(function(el){
    var a=+el.dataset.a,x=X(a);
    if(el.tagName==='rect'){
      var hasB=el.dataset.b!==undefined,xb=hasB?X(+el.dataset.b):end+2;
      var x0=Math.max(G.labelW-2,x),x1=Math.min(end+2,xb);
      if(x1<x0+G.minW){x1=x0+G.minW;}
      if(xb<G.labelW||x>end){el.setAttribute('width',0);return;}
      el.setAttribute('x',x0.toFixed(1));el.setAttribute('width',(x1-x0).toFixed(1));
    }else if(el.tagName==='line'){el.setAttribute('x1',x.toFixed(1));el.setAttribute('x2',x.toFixed(1));
      el.style.visibility=(x<G.labelW||x>end)?'hidden':'';}
    else el.setAttribute('x',(x+2).toFixed(1));
  });
  labels(svg,X,end);
  axis(svg,s,X);
}
// Who may show: fault rows in full (each has its row), then notes by priority in the first free row, then op labels.
function labels(svg,X,end){
  var frows={};
  [].slice.call(svg.querySelectorAll('text.flabel')).sort(function(p,q){return p.dataset.a-q.dataset.a;}).forEach(function(t){
    var a=+t.dataset.a,b=+t.dataset.b,xa=X(a),xb=X(b),w=tw(t),row=frows[t.getAttribute('y')]||(frows[t.getAttribute('y')]=[]);
    if(xb<G.labelW||xa>end){t.style.visibility='hidden';return;}
    var x=Math.max(G.labelW+3,xa+3);if(x+w>end-2)x=Math.max(G.labelW+3,end-2-w);
    // Faults sharing a row: a label pinned to the left edge may meet the next one; the earlier keeps its words.
    if(row.some(function(s){return x<s[1]+4&&x+w+4>s[0];})){t.style.visibility='hidden';return;}
    row.push([x,x+w]);t.setAttribute('x',x.toFixed(1));t.style.visibility='visible';});
  var groups=[svg].concat([].slice.call(svg.querySelectorAll('g.lane')));
  groups.forEach(function(g){
    if(!shown(g))return;
    var own=[].slice.call(g.querySelectorAll('text.note')).filter(function(t){return (g===svg?!t.closest('g.lane'):true);});
    own.sort(function(p,q){return (p.dataset.pri-q.dataset.pri)||(p.dataset.a-q.dataset.a);});
    // Where a label may go: right of its mark, else left of it (at the right edge); one with data-slide
    // (an anomaly tag in its short form) also just beside a label already placed, up to that many px from its mark.
    function spots(xa,w,r,placed,slide){
      var c=[xa+3];if(xa+3+w>end-2||slide)c.push(xa-3-w);
      if(slide)(placed[r]||[]).forEach(function(s){c.push(s[1]+4,s[0]-4-w);});
      return c.filter(function(x){return x>=G.labelW+1&&x+w<=end-1&&(x===xa+3||x===xa-3-w||Math.abs(x-xa)<=slide+w);})
        .sort(function(p,q){return Math.abs(p-xa-3)-Math.abs(q-xa-3);});}
    // Labels with a short form (an anomaly tag: "#2"): when one would hide, all take their short form, so a long one never crowds out the next.
    function place(short){
      var placed={},hidden=0;
      own.forEach(function(t){
        var xa=X(+t.dataset.a);
        if(t.dataset.full===undefined)t.dataset.full=t.textContent;
        if(!shown(t)||(keyFilter&&t.dataset.key&&t.dataset.key!==keyFilter)||xa<G.labelW-1||xa>end+1){t.textContent=t.dataset.full;t.style.visibility='hidden';return;}
        var rows=t.dataset.rows.split(',');
        var forms=t.dataset.short?(short?[t.dataset.short]:[t.dataset.full,t.dataset.short]):[t.dataset.full];
        for(var f=0;f<forms.length;f++){
          if(t.textContent!==forms[f])t.textContent=forms[f];
          // Only a short form slides: words in full sit at their mark.
          var w=tw(t),slide=forms[f]===t.dataset.short?+(t.dataset.slide||0):0;
          for(var i=0;i<rows.length;i++){var r=rows[i],list=placed[r]||(placed[r]=[]),xs=spots(xa,w,r,placed,slide);
            for(var k=0;k<xs.length;k++){var x=xs[k];
              if(list.every(function(s){return x+w+4<=s[0]||x>=s[1]+4;})){list.push([x,x+w]);
                t.setAttribute('x',x.toFixed(1));t.setAttribute('y',r);t.style.visibility='visible';return;}}}}
        t.textContent=t.dataset.full;t.style.visibility='hidden';if(t.dataset.short)hidden++;});
      return hidden;}
    if(place(false)>0)place(true);
    if(g===svg)return;
    var ls=[].slice.call(g.querySelectorAll('text.lbl')).filter(function(t){return shown(t)&&(!keyFilter||t.dataset.key===keyFilter);});
    ls.sort(function(p,q){return p.dataset.a-q.dataset.a;});
    var last=-Infinity;
    for(var i=0;i<ls.length;i++){
      var x=X(+ls[i].dataset.a)+2,w=tw(ls[i]);
      var ok=x>=G.labelW+1&&x+w<=end-1&&x>=last+4;
      ls[i].style.visibility=ok?'visible':'hidden';if(ok)last=x+w;
    }
  });
}
function axis(svg,s,X){
  var g=svg.querySelector('g.axis'),t=niceTicks(s.v0,s.v1,Math.max(3,Math.round(s.pw/120))),h=+svg.getAttribute('height')-8;
  var out='';
  t.ticks.forEach(function(v){var x=X(v);if(x<G.labelW-0.5||x>G.labelW+s.pw+0.5)return;x=x.toFixed(1);
    out+='<line x1="'+x+'" x2="'+x+'" y1="'+(G.headH-6)+'" y2="'+h+'" class="tick"/><text x="'+x+'" y="32" class="tk">'+tickLabel(v,t.step,s.mode)+'</text>';});
  g.innerHTML=out;
  // Tick labels at the edges would be cut: keep them inside the plot.
  g.querySelectorAll('text.tk').forEach(function(el){var w=tw(el),x=+el.getAttribute('x');
    if(x-w/2<G.labelW)el.setAttribute('x',(G.labelW+w/2).toFixed(1));else if(x+w/2>G.labelW+s.pw)el.setAttribute('x',(G.labelW+s.pw-w/2).toFixed(1));});
}
function zoom(svg,v0,v1){if(!(v1>v0))return;var s=st(svg),w=v1-v0;
  // Stay inside the window's range: never show time before the run or after its end.
  if(w>=s.a1-s.a0){v0=s.a0;v1=s.a1;}else if(v0<s.a0){v0=s.a0;v1=s.a0+w;}else if(v1>s.a1){v1=s.a1;v0=s.a1-w;}
  svg.dataset.v0=v0;svg.dataset.v1=v1;layout(svg);}
function toA(svg,px){var s=st(svg),r=svg.getBoundingClientRect(),sx=s.w/r.width;return s.v0+((px-r.left)*sx-G.labelW)*(s.v1-s.v0)/s.pw;}
function act(svg,z,at){var s=st(svg),m=at===undefined?(s.v0+s.v1)/2:at,w=s.v1-s.v0,f=at===undefined?0.5:(m-s.v0)/w;
  if(z==='in')zoom(svg,m-w/2*f,m+w/2*(1-f));
  else if(z==='out')zoom(svg,m-w*2*f,m+w*2*(1-f));
  else if(z==='left')zoom(svg,s.v0-w/3,s.v1-w/3);
  else if(z==='right')zoom(svg,s.v0+w/3,s.v1+w/3);
  else zoom(svg,s.a0,s.a1);}
var KEYS={'+':'in','=':'in','-':'out','_':'out','ArrowLeft':'left','ArrowRight':'right','0':'reset'};
var lastSvg=null;
wins.forEach(function(sec){
  var svg=sec.querySelector('svg.tl');if(!svg)return;
  sec.querySelectorAll('button[data-z]').forEach(function(b){b.addEventListener('click',function(){act(svg,b.dataset.z);});});
  var sel=svg.querySelector('rect.sel'),startX=null;
  svg.addEventListener('mouseenter',function(){lastSvg=svg;});
  svg.addEventListener('mousedown',function(e){startX=e.clientX;lastSvg=svg;svg.focus({preventScroll:true});e.preventDefault();});
  window.addEventListener('mousemove',function(e){if(startX===null)return;var r=svg.getBoundingClientRect(),sx=st(svg).w/r.width;
    var x0=(Math.min(startX,e.clientX)-r.left)*sx,x1=(Math.max(startX,e.clientX)-r.left)*sx;
    sel.setAttribute('x',x0);sel.setAttribute('width',x1-x0);});
  window.addEventListener('mouseup',function(e){if(startX===null)return;var x0=startX;startX=null;sel.setAttribute('width',0);
    if(Math.abs(e.clientX-x0)>6){var a=toA(svg,Math.min(x0,e.clientX)),b=toA(svg,Math.max(x0,e.clientX));zoom(svg,a,b);}});
  svg.addEventListener('dblclick',function(){var s=st(svg);zoom(svg,s.a0,s.a1);});
  // Ctrl+wheel (and a trackpad pinch) zooms around the pointer; a sideways wheel pans; a plain wheel scrolls the page.
  svg.addEventListener('wheel',function(e){var s=st(svg);
    if(e.ctrlKey||e.metaKey){e.preventDefault();var at=toA(svg,e.clientX),f=Math.exp(Math.max(-1,Math.min(1,e.deltaY/200)));
      if(!(at>=s.v0&&at<=s.v1))at=(s.v0+s.v1)/2;zoom(svg,at-(at-s.v0)*f,at+(s.v1-at)*f);}
    else if(Math.abs(e.deltaX)>Math.abs(e.deltaY)){e.preventDefault();var d=e.deltaX/st(svg).pw*(s.v1-s.v0);zoom(svg,s.v0+d,s.v1+d);}},{passive:false});
  svg.addEventListener('keydown',function(e){var z=KEYS[e.key];if(!z||e.ctrlKey||e.metaKey||e.altKey)return;e.preventDefault();act(svg,z);});
});
document.addEventListener('keydown',function(e){
  // Keys reach the timeline under the pointer when nothing else has focus.
  if(!lastSvg||e.ctrlKey||e.metaKey||e.altKey||!KEYS[e.key])return;var a=document.activeElement;
  if(a&&a!==document.body&&a.tagName!=='svg')return;e.preventDefault();act(lastSvg,KEYS[e.key]);});
document.addEventListener('mouseover',function(e){var t=e.target.closest?e.target.closest('[data-tip]'):null;
  if(!t){tip.style.display='none';return;}tip.textContent=t.dataset.tip;tip.style.display='block';});
document.addEventListener('mousemove',function(e){if(tip.style.display!=='block')return;
  var x=e.clientX+14,y=e.clientY+14;if(x+tip.offsetWidth>window.innerWidth-8)x=e.clientX-tip.offsetWidth-14;
  if(y+tip.offsetHeight>window.innerHeight-8)y=e.clientY-tip.offsetHeight-14;tip.style.left=x+'px';tip.style.top=y+'px';});
function showAnomaly(a,smooth){var sec=document.getElementById(a.dataset.win);if(!sec)return;var svg=sec.querySelector('svg.tl');
  var s=st(svg),x=+a.dataset.a,y=+a.dataset.b,pad=Math.max((y-x)*1.5,(s.a1-s.a0)*0.05,1e-6);
  zoom(svg,x-pad,y+pad);sec.scrollIntoView({behavior:smooth?'smooth':'auto',block:'start'});
  svg.querySelectorAll('.an-'+a.dataset.anom).forEach(function(el){el.classList.remove('flash');void el.getBoundingClientRect();el.classList.add('flash');});}
// #a2 zooms to anomaly 2, #w1 goes to window 1: when the page opens and whenever the hash changes on an open page.
function onHash(smooth){var m=/^#a(\\d+)$/.exec(location.hash);
  if(m){var a=document.querySelector('a[data-anom="'+(m[1]-1)+'"]');if(a)showAnomaly(a,smooth);return;}
  var w=/^#w(\\d+)$/.exec(location.hash);if(w){var sec=document.getElementById('w'+w[1]);if(sec)sec.scrollIntoView({block:'start'});}}
document.querySelectorAll('a[data-anom]').forEach(function(a){a.addEventListener('click',function(e){
  if(location.hash===a.getAttribute('href')){e.preventDefault();showAnomaly(a,true);}});});
window.addEventListener('hashchange',function(){onHash(true);});
var kf=document.getElementById('keyf');
if(kf)kf.addEventListener('change',function(){keyFilter=kf.value;wins.forEach(function(sec){var svg=sec.querySelector('svg.tl');if(!svg)return;
  svg.querySelectorAll('[data-key]').forEach(function(el){el.style.display=(!keyFilter||el.dataset.key===keyFilter)?'':'none';});
  var y=+svg.dataset.top;svg.querySelectorAll('g.lane').forEach(function(lane){
    var show=!keyFilter||!lane.querySelector('[data-key]')||lane.querySelector('[data-key="'+CSS.escape(keyFilter)+'"]')!==null;
    lane.style.display=show?'':'none';if(show){lane.setAttribute('transform','translate(0,'+y+')');y+=+lane.querySelector('.stripe').getAttribute('height');}});
  svg.setAttribute('height',y+8);svg.setAttribute('viewBox','0 0 '+svg.dataset.w+' '+(y+8));
  layout(svg);});tellHeight();});
// Framed (a demo page): tell the page around it how tall this page is, so the frame fits its content.
// The body's own height (the document's would be at least the frame's: a frame would never shrink).
function tellHeight(){if(window.parent===window)return;var b=document.body.getBoundingClientRect();
  try{window.parent.postMessage({lockpickTimelineHeight:Math.ceil(b.bottom+window.scrollY)},'*');}catch(e){}}
function all(){wins.forEach(function(sec){var svg=sec.querySelector('svg.tl');if(svg){fit(svg);layout(svg);}});tellHeight();}
all();
var rt=null;window.addEventListener('resize',function(){clearTimeout(rt);rt=setTimeout(all,60);});
onHash(false);
document.documentElement.dataset.ready='1';
})();`;
}
