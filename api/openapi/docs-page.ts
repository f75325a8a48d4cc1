// A dependency-free reference page: it fetches /openapi.json and renders every operation with its
// parameters and responses. No CDN, so it works offline and on locked-down networks.
export function docsPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>API reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1a1f36;background:#f6f8fa}
header{background:#1a1f36;color:#fff;padding:24px 32px}main{max-width:980px;margin:0 auto;padding:24px}
.op{background:#fff;border:1px solid #e3e8ee;border-radius:8px;margin:12px 0;padding:16px}
.m{display:inline-block;min-width:64px;font-weight:700;text-transform:uppercase}
.get{color:#0a7d36}.post{color:#0055d4}.delete{color:#c0123c}.put{color:#8a5a00}
code{font-family:ui-monospace,monospace;font-size:13px}h2{margin-top:32px}pre{background:#f6f8fa;padding:8px;overflow:auto;max-height:300px}
summary{cursor:pointer}
</style></head><body><header><h1>Payment orchestration API</h1><p>Generated from the service's own schemas: <a style="color:#9cf" href="/openapi.json">openapi.json</a></p></header>
<main id="root">Loading…</main>
<script>
fetch('/openapi.json').then(r=>r.json()).then(doc=>{
  const root=document.getElementById('root');root.textContent='';
  const byTag={};
  for(const [path,ops] of Object.entries(doc.paths)) for(const [method,op] of Object.entries(ops)){
    const tag=(op.tags&&op.tags[0])||'Other';(byTag[tag]=byTag[tag]||[]).push({path,method,op});}
  for(const [tag,ops] of Object.entries(byTag)){
    const h=document.createElement('h2');h.textContent=tag;root.appendChild(h);
    for(const {path,method,op} of ops){
      const d=document.createElement('div');d.className='op';
      const t=document.createElement('div');
      const m=document.createElement('span');m.className='m '+method;m.textContent=method;
      const c=document.createElement('code');c.textContent=path;
      t.append(m,c);const s=document.createElement('p');s.textContent=op.summary||'';d.append(t,s);
      const det=document.createElement('details');const sm=document.createElement('summary');sm.textContent='Parameters and responses';
      const pre=document.createElement('pre');pre.textContent=JSON.stringify({parameters:op.parameters,requestBody:op.requestBody,responses:op.responses},null,2);
      det.append(sm,pre);d.append(det);root.appendChild(d);
    }
  }
});
</script></body></html>`;
}
