// The stylesheet of timeline.html (inlined). Colours follow Jepsen's timeline:
// ok green, fail pink, info orange; anomalies red; faults hatched violet.
export function timelineCss(): string {
  return `
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:14px 18px;color:#1b1b1b;background:#fff}
header h1{font-size:20px;margin:0 0 4px}
.verdict{display:inline-block;padding:2px 10px;border-radius:4px;color:#fff;font-weight:700;letter-spacing:.5px}
.verdict.ok{background:#2e7d32}.verdict.bad{background:#c62828}.verdict.unk{background:#ef6c00}
.src{font-weight:400;font-family:ui-monospace,Menlo,monospace;font-size:14px;color:#444}
.facts{margin:2px 0 6px;color:#333}
details.meta{font-size:13px;margin-bottom:4px}details.meta summary{cursor:pointer;color:#444}
table.meta{border-collapse:collapse;font-size:12px;margin-bottom:6px}table.meta th{text-align:left;padding:1px 10px 1px 0;color:#666;font-weight:500}
table.meta td{font-family:ui-monospace,Menlo,monospace;word-break:break-all}
.anoms{border:2px solid #e53935;border-radius:6px;padding:6px 12px;margin:8px 0;background:#fff5f5}
.anoms.none{border-color:#43a047;background:#f1f8e9}
.anoms h2{font-size:15px;margin:2px 0 4px}
.anoms ol{margin:0;padding-left:4px;list-style:none;max-height:260px;overflow:auto}
.anoms li{margin:3px 0}.anoms a{color:inherit;text-decoration:none;display:block;padding:3px 6px;border-radius:4px}
.anoms a:hover{background:#ffe0e0}
.num{display:inline-block;min-width:26px;font-weight:700;color:#c62828}
.atype{font-weight:600}
.where{font-size:12px;color:#555;margin-left:30px;font-family:ui-monospace,Menlo,monospace}
.cut{background:#fff8e1;border-left:4px solid #ffb300;padding:6px 10px;margin:8px 0}
.keys{font-size:13px;color:#444}
.controls{display:flex;gap:18px;align-items:center;flex-wrap:wrap;margin:8px 0;font-size:12px}
.lg{display:inline-flex;align-items:center;gap:4px;margin-right:12px}
section.win{margin:12px 0 18px}section.win h3{font-size:14px;margin:4px 0}
.zoom{font-size:12px;color:#666}.zoom button{font-size:12px;padding:1px 7px;margin-right:2px;cursor:pointer}
.scroll{overflow-x:auto}
svg.tl{display:block;user-select:none;cursor:crosshair}
.stripe{fill:#000;fill-opacity:0}g.lane:nth-child(even) .stripe{fill-opacity:.035}
.pl{font:600 12px ui-monospace,Menlo,monospace;fill:#333}.pd{font:10px ui-monospace,Menlo,monospace;fill:#777}
g.lane.node .pl{fill:#4527a0}g.lane.key .pl,g.lane.resource .pl{fill:#5d4037}
.lease{fill:#43a047;fill-opacity:.55;stroke:#2e7d32;stroke-width:1}
.lease-unsure{fill:url(#p-unsure);stroke:#2e7d32;stroke-width:1;stroke-dasharray:2 2}
.gap{fill:url(#p-gap);stroke:#c62828;stroke-width:1.2;stroke-dasharray:4 2}
.note{font-size:10.5px;fill:#333}.note.n-token{fill:#0d47a1;font-weight:600}.tokl{color:#0d47a1;margin-right:4px}
.note.n-lease-end{fill:#2e7d32;font-weight:600}.note.n-gap-acquire{fill:#e65100;font-weight:700}.note.n-stale-unlock{fill:#b71c1c;font-weight:700}.note.n-crash{fill:#6a1b9a;font-weight:700}
.note.n-stale-write{fill:#b71c1c;font-weight:700}.note.n-rejected{fill:#1565c0;font-weight:700}.note.n-write{fill:#555}
.tick-lease-end{stroke:#2e7d32;stroke-width:2}.tick-gap-acquire{stroke:#e65100;stroke-width:2.5}.tick-stale-unlock{stroke:#b71c1c;stroke-width:3}.tick-crash{stroke:#6a1b9a;stroke-width:3}
.tick-stale-write{stroke:#b71c1c;stroke-width:3}.tick-rejected{stroke:#1565c0;stroke-width:3}
.frow{fill:#d1c4e9;stroke:#7e57c2;fill-opacity:.8}.frow.k-clock-bump,.frow.k-clock-strobe,.frow.k-client-clock{fill:#ffe0b2;stroke:#ef6c00}
.nfault{fill:url(#p-fault);stroke:#7e57c2}.nfault.k-clock-bump,.nfault.k-clock-strobe{fill:#ffe0b2;stroke:#ef6c00}
.note.nnote{fill:#311b92;font-weight:600}.stuck{fill:#fff3e0;stroke:#e65100;stroke-width:1.5;stroke-dasharray:6 3}.note.snote{fill:#bf360c;font-weight:700}
.note.atag{font-size:12px;font-weight:700;fill:#c62828;cursor:help}
.resnote{background:#fff3e0;border-left:4px solid #e65100;padding:6px 10px;margin:8px 0;font-size:13px}
.outcomes{color:#444;margin:6px 0;font-size:13px}
.reproduction{margin:6px 0;padding:4px 8px;background:#fff8e1;border-left:3px solid #f9a825}
a.self{color:inherit;text-decoration:none}a.self:hover{text-decoration:underline}
.overview h3{font-size:13px;margin:6px 0 2px;font-weight:500;color:#444}svg.ov{display:block;border:1px solid #ddd}
.ovbar{fill:#90a4ae}.ovan{stroke:#d50000;stroke-width:1.5;vector-effect:non-scaling-stroke}.ovwin{fill:#1e88e5;fill-opacity:.12;stroke:#1565c0;vector-effect:non-scaling-stroke;cursor:pointer}
svg.tl:focus{outline:2px solid #90caf9;outline-offset:1px}
.tick{stroke:#000;stroke-opacity:.08}.tk{font-size:10px;fill:#666;text-anchor:middle}
.op{stroke-width:1}.op.ok{fill:#a5d6a7;stroke:#2e7d32}
.op.fail{fill:#f8bbd0;stroke:#ad1457;stroke-dasharray:3 2}
.op.info{fill:url(#g-info);stroke:#e65100;stroke-dasharray:4 3}
.op.bad{stroke:#d50000;stroke-width:2.5}
.op.culprit{fill:#ff5252;stroke:#b71c1c;stroke-width:3}
.hold{fill:#64b5f6;fill-opacity:.45}
.hold.shared{fill:#81c784;fill-opacity:.55}
.fault{fill:url(#p-fault);fill-opacity:.75}
.flabel{font-size:11px;fill:#311b92;font-weight:600;pointer-events:none}
.flabel.sect{fill:#757575;font-weight:500}
.fstep{stroke:#4527a0;stroke-width:1.5;stroke-dasharray:3 3;stroke-opacity:.8}
.fstrip{fill:#b39ddb;stroke:#7e57c2}
.mark{stroke:#4527a0;stroke-width:1.5;stroke-dasharray:4 3}.mark.sect{stroke:#9e9e9e;stroke-width:1;stroke-dasharray:2 3}
.an.dh{fill:#e53935;fill-opacity:.3;stroke:#b71c1c;stroke-width:1}
.an.nlw{fill:#e53935;fill-opacity:.12;stroke:#d50000;stroke-dasharray:5 3}
.aguide{stroke:#d50000;stroke-width:1.5;stroke-opacity:.7;pointer-events:none}
.atag{font-size:12px;font-weight:700;fill:#c62828;cursor:help}
.lbl{font-size:11px;fill:#1b1b1b;pointer-events:none}
.sel{fill:#1e88e5;fill-opacity:.15;pointer-events:none}
@keyframes fl{0%,100%{opacity:1}50%{opacity:.15}}.flash{animation:fl .5s 4}
#tip{position:fixed;display:none;background:#212121;color:#fafafa;font:12px/1.45 ui-monospace,Menlo,monospace;white-space:pre;padding:6px 9px;border-radius:4px;pointer-events:none;z-index:9;max-width:70vw;overflow:hidden}
`;
}
