// The page script of timeline.html: re-lays out a window's SVG for zoom
// (buttons, drag to select, click on an anomaly), the hover tooltip and the
// key filter. Plain browser JavaScript, inlined; the page also reads fine
// without it (html.ts draws the first layout itself).
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
function st(svg){return {a0:+svg.dataset.a0,a1:+svg.dataset.a1,v0:+svg.dataset.v0,v1:+svg.dataset.v1,mode:svg.dataset.mode};}
function layout(svg){
  var s=st(svg),k=G.plotW/(s.v1-s.v0),end=G.labelW+G.plotW;
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
      el.style.display=(x<G.labelW||x>end)?'none':'';}
    else if(el.classList.contains('flabel')||el.classList.contains('atag')){
      // Labels of periods stick to the left edge while their period is in view; others hide when out of view.
      var xe=el.dataset.b!==undefined?X(+el.dataset.b):x;
      el.setAttribute('x',Math.max(G.labelW+2,x+2).toFixed(1));el.style.display=(xe<G.labelW||x>end)?'none':'';}
    else el.setAttribute('x',(x+2).toFixed(1));
  });
  labels(svg,X,end);
  axis(svg,s,X);
}
function labels(svg,X,end){
  var hs=[].slice.call(svg.querySelectorAll('text.flabel')).filter(function(t){return t.style.display!=='none';});
  hs.sort(function(p,q){return p.getAttribute('x')-q.getAttribute('x');});
  for(var j=0;j<hs.length;j++){var hx=+hs[j].getAttribute('x'),hn=j+1<hs.length?+hs[j+1].getAttribute('x'):end+400;
    hs[j].style.visibility=hx+hs[j].textContent.length*G.charW>hn-4?'hidden':'visible';}
  svg.querySelectorAll('g.lane').forEach(function(lane){
    var ls=[].slice.call(lane.querySelectorAll('text.lbl')).filter(function(t){return lane.style.display!=='none'&&t.getAttribute('display')!=='none'&&(!keyFilter||t.dataset.key===keyFilter);});
    ls.sort(function(p,q){return p.dataset.a-q.dataset.a;});
    for(var i=0;i<ls.length;i++){
      var x=X(+ls[i].dataset.a),nx=i+1<ls.length?X(+ls[i+1].dataset.a):end+400;
      var w=ls[i].textContent.length*G.charW;
      ls[i].style.visibility=(x<G.labelW-1||x>end||x+w>nx-3)?'hidden':'visible';
    }
  });
}
function axis(svg,s,X){
  var g=svg.querySelector('g.axis'),t=niceTicks(s.v0,s.v1,10),h=+svg.getAttribute('height');
  var out='';
  t.ticks.forEach(function(v){var x=X(v).toFixed(1);
    out+='<line x1="'+x+'" x2="'+x+'" y1="'+(G.top-6)+'" y2="'+h+'" class="tick"/><text x="'+x+'" y="'+(G.top-10)+'" class="tk">'+tickLabel(v,t.step,s.mode)+'</text>';});
  g.innerHTML=out;
}
function zoom(svg,v0,v1){if(!(v1>v0))return;var s=st(svg),w=v1-v0;
  // Stay inside the window's range: never show time before the run or after its end.
  if(w>=s.a1-s.a0){v0=s.a0;v1=s.a1;}else if(v0<s.a0){v0=s.a0;v1=s.a0+w;}else if(v1>s.a1){v1=s.a1;v0=s.a1-w;}
  svg.dataset.v0=v0;svg.dataset.v1=v1;layout(svg);}
function toA(svg,px){var s=st(svg),r=svg.getBoundingClientRect(),sx=G.width/r.width;return s.v0+((px-r.left)*sx-G.labelW)*(s.v1-s.v0)/G.plotW;}
wins.forEach(function(sec){
  var svg=sec.querySelector('svg.tl');if(!svg)return;
  sec.querySelectorAll('button[data-z]').forEach(function(b){b.addEventListener('click',function(){
    var s=st(svg),m=(s.v0+s.v1)/2,w=s.v1-s.v0;
    if(b.dataset.z==='in')zoom(svg,m-w/4,m+w/4);
    else if(b.dataset.z==='out')zoom(svg,Math.max(s.a0-w,m-w),Math.min(s.a1+w,m+w));
    else if(b.dataset.z==='left')zoom(svg,s.v0-w/3,s.v1-w/3);
    else if(b.dataset.z==='right')zoom(svg,s.v0+w/3,s.v1+w/3);
    else zoom(svg,s.a0,s.a1);});});
  var sel=svg.querySelector('rect.sel'),startX=null;
  svg.addEventListener('mousedown',function(e){startX=e.clientX;e.preventDefault();});
  window.addEventListener('mousemove',function(e){if(startX===null)return;var r=svg.getBoundingClientRect(),sx=G.width/r.width;
    var x0=(Math.min(startX,e.clientX)-r.left)*sx,x1=(Math.max(startX,e.clientX)-r.left)*sx;
    sel.setAttribute('x',x0);sel.setAttribute('width',x1-x0);});
  window.addEventListener('mouseup',function(e){if(startX===null)return;var x0=startX;startX=null;sel.setAttribute('width',0);
    if(Math.abs(e.clientX-x0)>6){var a=toA(svg,Math.min(x0,e.clientX)),b=toA(svg,Math.max(x0,e.clientX));zoom(svg,a,b);}});
  svg.addEventListener('dblclick',function(){var s=st(svg);zoom(svg,s.a0,s.a1);});
});
document.addEventListener('mouseover',function(e){var t=e.target.closest?e.target.closest('[data-tip]'):null;
  if(!t){tip.style.display='none';return;}tip.textContent=t.dataset.tip;tip.style.display='block';});
document.addEventListener('mousemove',function(e){if(tip.style.display!=='block')return;
  var x=e.clientX+14,y=e.clientY+14;if(x+tip.offsetWidth>window.innerWidth-8)x=e.clientX-tip.offsetWidth-14;
  if(y+tip.offsetHeight>window.innerHeight-8)y=e.clientY-tip.offsetHeight-14;tip.style.left=x+'px';tip.style.top=y+'px';});
document.querySelectorAll('a[data-anom]').forEach(function(a){a.addEventListener('click',function(e){
  e.preventDefault();var sec=document.getElementById(a.dataset.win);if(!sec)return;var svg=sec.querySelector('svg.tl');
  var s=st(svg),x=+a.dataset.a,y=+a.dataset.b,pad=Math.max((y-x)*1.5,(s.a1-s.a0)*0.01,1e-6);
  zoom(svg,x-pad,y+pad);sec.scrollIntoView({behavior:'smooth',block:'start'});
  svg.querySelectorAll('.an-'+a.dataset.anom).forEach(function(el){el.classList.remove('flash');void el.getBoundingClientRect();el.classList.add('flash');});});});
var kf=document.getElementById('keyf');
if(kf)kf.addEventListener('change',function(){keyFilter=kf.value;wins.forEach(function(sec){var svg=sec.querySelector('svg.tl');if(!svg)return;
  svg.querySelectorAll('[data-key]').forEach(function(el){el.style.display=(!keyFilter||el.dataset.key===keyFilter)?'':'none';});
  var y=G.top,n=0;svg.querySelectorAll('g.lane').forEach(function(lane){
    var show=!keyFilter||lane.querySelector('[data-key="'+CSS.escape(keyFilter)+'"]')!==null;
    lane.style.display=show?'':'none';if(show){lane.setAttribute('transform','translate(0,'+y+')');y+=G.laneH;n++;}});
  svg.setAttribute('height',y+8);svg.querySelectorAll('.full').forEach(function(el){el.setAttribute('height',Math.max(0,y-G.top));});
  layout(svg);});});
wins.forEach(function(sec){var svg=sec.querySelector('svg.tl');if(svg)layout(svg);});
// timeline.html#a2 opens zoomed on anomaly #2 (links from CI logs).
var hm=/^#a(\\d+)$/.exec(location.hash),ha=hm&&document.querySelector('a[data-anom="'+(hm[1]-1)+'"]');
if(ha)ha.click();
})();`;
}
