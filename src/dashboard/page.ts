/**
 * The dashboard's one HTML page. No inline script or style: the Content-Security-Policy the
 * server sends allows only this origin's files, so an object name that tried to be markup could
 * not run even if the UI ever put it into the DOM as HTML (it does not: text nodes only).
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>svc dashboard</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/ui/style.css">
<script type="module" src="/ui/app.js"></script>
</head>
<body>
<header>
  <strong>svc</strong>
  <nav>
    <button type="button" data-view="resources" class="active">Resources</button>
    <button type="button" data-view="inspector">Watch inspector</button>
    <button type="button" data-view="overview">Overview</button>
    <button type="button" data-view="controllers">Controllers</button>
  </nav>
  <span id="connection" class="connection">connecting…</span>
</header>
<main id="app"></main>
</body>
</html>
`;

export const PAGE_CSS = `
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.4 system-ui, sans-serif; color: #1d2330; background: #f6f7f9; }
header { display: flex; gap: 16px; align-items: center; padding: 8px 16px; background: #1d2330; color: #fff; }
header nav button { background: none; border: 0; color: #b8c0cc; font: inherit; padding: 4px 8px; cursor: pointer; }
header nav button.active { color: #fff; border-bottom: 2px solid #4f8cff; }
.connection { margin-left: auto; color: #b8c0cc; }
main { display: flex; height: calc(100vh - 40px); overflow: hidden; }
.resources { display: flex; flex: 1; min-width: 0; min-height: 0; }
main > section.content { min-height: 0; }
aside { width: 240px; overflow: auto; border-right: 1px solid #d8dce3; background: #fff; }
aside input { width: calc(100% - 16px); margin: 8px; padding: 4px; }
aside ul { list-style: none; margin: 0; padding: 0; }
aside li { padding: 3px 12px; cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
aside li.active { background: #e3ecff; }
aside li small { color: #7a8494; }
section.content { flex: 1; display: flex; flex-direction: column; min-width: 0; min-height: 0; }
mark.changed { background: #fff1a8; }
.toolbar { display: flex; gap: 8px; align-items: center; padding: 8px 12px; border-bottom: 1px solid #d8dce3; background: #fff; }
.toolbar input, .toolbar select { padding: 3px 6px; font: inherit; }
.toolbar .count { margin-left: auto; color: #7a8494; }
.scroller { flex: 1; overflow: auto; position: relative; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: 3px 10px; border-bottom: 1px solid #edf0f4; white-space: nowrap; }
th { position: sticky; top: 0; background: #f0f2f5; z-index: 1; }
tr.row { cursor: pointer; }
tr.row:hover { background: #f3f6fc; }
tr.flash { animation: flash 1s; }
@keyframes flash { from { background: #fff6c8; } to { background: transparent; } }
.detail { height: 55%; overflow: hidden; border-top: 1px solid #d8dce3; background: #fff; display: none; }
.detail.open { display: flex; flex-direction: column; }
.detail .bar { display: flex; gap: 8px; padding: 4px 12px; background: #f0f2f5; }
.detail .panes { display: flex; flex: 1; min-height: 0; }
.object-main { flex: 1; min-width: 0; overflow: auto; }
.object-side { flex: 0 0 48%; overflow: auto; border-left: 1px solid #d8dce3; }
.detail pre { margin: 0; padding: 8px 12px; font: 12px/1.4 ui-monospace, monospace; }
.type-ADDED { color: #1a7f37; } .type-MODIFIED { color: #9a6700; } .type-DELETED { color: #cf222e; } .type-ERROR { color: #cf222e; font-weight: bold; } .type-BOOKMARK { color: #7a8494; }
.overview h3 { margin: 12px 12px 4px; font-size: 14px; }
.phases { display: flex; gap: 8px; padding: 4px 12px; }
.phase { padding: 2px 8px; border-radius: 10px; background: #e8ebf0; }
.phase-Running { background: #dcf5e3; } .phase-Failed { background: #fde2e1; } .phase-Pending { background: #fff1c7; }
.ok { color: #1a7f37; } .bad { color: #cf222e; }
td.message { white-space: normal; max-width: 480px; }
.controllers { overflow: auto; }
.controllers .toolbar span { color: #4a5262; }
.plots { display: flex; gap: 12px; padding: 8px 12px; background: #fff; border-bottom: 1px solid #d8dce3; }
.plot { flex: 1; min-width: 0; }
.split { display: flex; flex: 1; min-height: 240px; }
.split .loops { flex: 0 0 640px; border-right: 1px solid #d8dce3; }
tr.selected { background: #e3ecff; }
.outcome-retry, .outcome-terminal { color: #cf222e; } .outcome-requeueAfter { color: #9a6700; } .outcome-awaitChange { color: #1a7f37; }
.tree { margin: 0; padding: 4px 12px 4px 28px; font: 12px/1.6 ui-monospace, monospace; }
.tree li.self > span { font-weight: bold; }
.detail h4 { margin: 8px 12px 2px; font-size: 12px; color: #4a5262; }
.detail .log-state { padding: 4px 12px; color: #4a5262; }
.detail pre.log { background: #1d2330; color: #e8ebf0; min-height: 120px; }
.error { color: #cf222e; padding: 8px 12px; }
`;
