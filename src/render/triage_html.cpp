// The triage page: the bucket list rendered as HTML rows in chunks the browser
// skips while out of view (so that it prints and reads without script), the
// per-bucket details as HTML strings in JSON arrays of one chunk's buckets,
// each gzip-compressed and base64-encoded, unpacked when one of its buckets is
// opened (10,000 buckets of traces as DOM, or even as plain text in the page,
// would cost seconds at load), and the style and script inline.
#include "render/triage_html.h"

#include <algorithm>

#include "render/markup_escape.h"
#include "render/packed_text.h"

namespace btaudit {

namespace {

constexpr std::string_view kStyle = R"css(
:root{--ink:#1d2330;--muted:#5b6473;--line:#d5dae2;--head:#f3f5f8;--focus:#1a5fd0;
--reliable:#d3f0dc;--stale:#ececec;--plausible:#fff0b8;--unknown:#fff}
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);background:#fff}
header{padding:12px 20px;border-bottom:1px solid var(--line);background:#fff}
h1{font-size:18px;margin:0 0 4px}
.meta{color:var(--muted);margin:0 0 8px}
.tools{display:flex;gap:12px;align-items:center;flex-wrap:wrap}
#filter{width:28em;max-width:100%;padding:5px 8px;font:inherit;border:1px solid #9aa3b1;border-radius:4px}
main{padding:0 20px 40px}
#buckets{margin-top:8px;border-top:1px solid var(--line)}
.row{display:flex;align-items:flex-start;border-bottom:1px solid var(--line)}
.row>span{padding:4px 6px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;flex:none}
.head{background:var(--head);position:sticky;top:0;z-index:1;font-weight:600}
.head button{font:inherit;font-weight:600;border:0;background:none;padding:0;cursor:pointer;color:inherit}
.head button::after{content:"";margin-left:4px;color:var(--muted)}
.head [aria-sort=ascending] button::after{content:"\25B2"}
.head [aria-sort=descending] button::after{content:"\25BC"}
.c-count{width:6em;text-align:right;font-variant-numeric:tabular-nums}.c-last{width:7.5em}.c-kind{width:9em}
.c-func{width:17%}.row>span.c-title{flex:1 1 0;min-width:8em}
.row>span.c-spark{width:130px;height:26px;background:no-repeat 5px 4px;print-color-adjust:exact;-webkit-print-color-adjust:exact}
/* Chunks of rows out of view are neither styled, laid out nor painted: 10,000 rows load and sort at once. */
.chunk{content-visibility:auto;contain-intrinsic-block-size:2900px}
.bucket{cursor:pointer}
.bucket:hover{background:#f7f9fc}
.bucket[aria-expanded=true]{background:#eef3fb}
.bucket:focus,.head button:focus,#filter:focus{outline:2px solid var(--focus);outline-offset:-2px}
code,.bucket .c-func{font:12px/1.3 ui-monospace,"DejaVu Sans Mono",monospace}
.bucket .c-func{padding-top:6px}
.spark path{fill:#3d6fb6}
.detail{background:#fbfcfe;padding:8px 12px 16px;border-bottom:1px solid var(--line)}
.detail-body h2{font-size:16px;margin:4px 0 8px}
.detail-body h3{font-size:14px;margin:14px 0 4px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
figure.timeline{margin:10px 0}figure.timeline figcaption{color:var(--muted);font-size:12px}
table.trace{border-collapse:collapse;width:100%}
table.trace th,table.trace td{border-bottom:1px solid var(--line);padding:2px 6px;text-align:left;vertical-align:top}
table.trace tr.v-reliable{background:var(--reliable)}table.trace tr.v-stale{background:var(--stale);color:#555}
table.trace tr.v-plausible{background:var(--plausible)}table.trace tr.v-unknown{background:var(--unknown)}
table.trace tr.guilty td{font-weight:600}
.mark{color:#b3261e}
.src{color:var(--muted);font-size:12px;margin-top:2px}
.note,.who{color:var(--muted);margin:2px 0}
.picture{overflow-x:auto}
svg.stacks text{font:11px ui-monospace,"DejaVu Sans Mono",monospace;fill:#1d2330}
svg.stacks text.col{font-weight:700}
svg.stacks rect{stroke:#8a93a3;stroke-width:.6}
svg.stacks .v-reliable rect{fill:#b7e4c7}svg.stacks .v-stale rect{fill:#e5e5e5}
svg.stacks .v-plausible rect{fill:#ffe8a3}svg.stacks .v-unknown rect{fill:#fff}
svg.stacks path.link{stroke:#555;fill:none;stroke-width:1.2}
.legend span{display:inline-block;padding:0 6px;border:1px solid var(--line);margin-right:4px}
.legend .reliable{background:var(--reliable)}.legend .stale{background:var(--stale)}
.legend .plausible{background:var(--plausible)}.legend .unknown{background:var(--unknown)}
.hint{color:var(--muted);font-size:12px}
@media print{
  header{position:static;border:0}
  #filter,.hint,.tools label{display:none}
  .head{position:static}
  .head button::after{content:""}
  .bucket,.detail{break-inside:avoid}
  .chunk{content-visibility:visible}
  table.trace tr{break-inside:avoid}
  body{font-size:11px}
  .row>span.c-title{white-space:normal}
  a{color:inherit}
}
)css";

// Rows come in chunks of this many, each skipped by the browser while out of view
// (content-visibility): one chunk's worth of work per screen, not one per row.
constexpr std::size_t kChunkRows = 100;

// Sorting moves each bucket row with its detail row; filtering hides rows whose
// text (title, kind, function, signature) lacks every typed word.
constexpr std::string_view kScript = R"js(
(function(){
"use strict";
var list=document.getElementById("rows"),head=document.getElementById("head");
var chunks=Array.prototype.slice.call(list.children),rows=Array.prototype.slice.call(list.querySelectorAll(".bucket"));
var PER=+list.getAttribute("data-per");
// What the filter searches, per row: built at the first filter, not at load.
function words(r){return [r.children[4].textContent,r.children[2].textContent,r.children[3].textContent,
  r.getAttribute("data-sig")].join(" ").toLowerCase();}
var text=null;
var shown=document.getElementById("shown"),filter=document.getElementById("filter");
function isDetail(n){return !!n&&n.classList.contains("detail");}
var reasons=JSON.parse(document.getElementById("reasons").textContent);
// The details come in packs of as many buckets as a chunk of rows, each gzip+base64 on a line
// of its own: opening a bucket unpacks only its pack (a tenth of the text, none of it at load).
var packs=null,unpacked={};
function detailOf(i){
  if(!packs)packs=document.getElementById("details").textContent.trim().split("\n");
  var k=Math.floor(i/PER);
  if(!unpacked[k]){
    var bin=atob(packs[k]),bytes=new Uint8Array(bin.length);
    for(var j=0;j<bin.length;j++)bytes[j]=bin.charCodeAt(j);
    unpacked[k]=new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text().then(JSON.parse);
  }
  return unpacked[k].then(function(pack){return pack[i-k*PER];});
}
function toggle(row){
  var next=row.nextElementSibling;
  if(row.getAttribute("aria-expanded")==="true"){if(isDetail(next))next.remove();row.setAttribute("aria-expanded","false");return Promise.resolve();}
  var d=document.createElement("div");d.className="detail";d.setAttribute("role","region");
  d.id="d"+row.getAttribute("data-i");d.setAttribute("aria-label","bucket detail");d.textContent="...";
  row.after(d);row.setAttribute("aria-expanded","true");row.setAttribute("aria-controls",d.id);
  return detailOf(+row.getAttribute("data-i")).then(function(html){
    d.innerHTML=html;
    Array.prototype.forEach.call(d.querySelectorAll("table.trace tbody tr"),function(tr){
      tr.title=reasons[tr.lastElementChild.textContent]||"";});
    d.setAttribute("data-loaded","1");
  });
}
var keys={count:function(r){return +r.getAttribute("data-count");},
  last:function(r){return +r.getAttribute("data-last");},
  kind:function(r){return r.children[2].textContent;},
  func:function(r){return r.children[3].textContent;}};
function sortBy(key,dir){
  var get=keys[key],idx=rows.map(function(r,i){return i;});
  var vals=rows.map(get),counts=rows.map(keys.count),num=typeof vals[0]==="number";
  idx.sort(function(a,b){
    var x=vals[a],y=vals[b],c=num?x-y:(x<y?-1:x>y?1:0);
    if(dir==="descending")c=-c;
    if(c===0)c=counts[b]-counts[a];
    return c===0?a-b:c;});
  var moved=idx.map(function(i){var r=rows[i],d=r.nextElementSibling;return isDetail(d)?[r,d]:[r];});
  chunks.forEach(function(c,k){
    var nodes=[];moved.slice(k*PER,(k+1)*PER).forEach(function(p){nodes.push.apply(nodes,p);});
    c.replaceChildren.apply(c,nodes);});
  rows=idx.map(function(i){return rows[i];});if(text)text=idx.map(function(i){return text[i];});
  sizeChunks();
  Array.prototype.forEach.call(head.querySelectorAll("[role=columnheader]"),function(h){
    var b=h.querySelector("button");if(!b)return;
    if(b.getAttribute("data-key")===key)h.setAttribute("aria-sort",dir);else h.removeAttribute("aria-sort");});
}
Array.prototype.forEach.call(head.querySelectorAll("button"),function(b){
  b.addEventListener("click",function(){
    var cur=b.parentNode.getAttribute("aria-sort"),key=b.getAttribute("data-key");
    var first=(key==="kind"||key==="func")?"ascending":"descending";
    sortBy(key,cur?(cur==="ascending"?"descending":"ascending"):first);});});
function applyFilter(){
  var want=filter.value.toLowerCase().split(/\s+/).filter(Boolean),n=0;
  if(!text)text=rows.map(words);
  rows.forEach(function(r,i){
    var ok=want.every(function(w){return text[i].indexOf(w)>=0;});
    if(r.hidden===ok)r.hidden=!ok;var d=r.nextElementSibling;if(isDetail(d))d.hidden=!ok;if(ok)n++;});
  shown.textContent=n+" of "+rows.length+" buckets";
  sizeChunks();
}
// An out-of-view chunk takes the height its shown rows would: the scroll bar stays true after a filter.
var rowHeight=0;
function sizeChunks(){
  if(!rowHeight){var f=rows.find(function(r){return !r.hidden;});rowHeight=f?f.getBoundingClientRect().height||29:29;}
  chunks.forEach(function(c,k){
    var n=0;for(var i=k*PER;i<Math.min(rows.length,(k+1)*PER);i++)if(!rows[i].hidden)n++;
    c.hidden=n===0;c.style.containIntrinsicBlockSize=(n*rowHeight)+"px";});
}
var timer=0;
filter.addEventListener("input",function(){clearTimeout(timer);timer=setTimeout(applyFilter,rows.length>2000?120:0);});
filter.addEventListener("keydown",function(e){
  if(e.key==="ArrowDown"){var r=rows.find(function(x){return !x.hidden;});if(r){r.focus();e.preventDefault();}}
  if(e.key==="Enter"){clearTimeout(timer);applyFilter();}});
function step(row,dir){
  for(var i=rows.indexOf(row)+dir;i>=0&&i<rows.length;i+=dir)if(!rows[i].hidden)return rows[i];
  return null;
}
list.addEventListener("click",function(e){
  if(e.target.closest(".detail"))return;var r=e.target.closest(".bucket");if(r){r.focus();toggle(r);}});
list.addEventListener("keydown",function(e){
  var r=e.target.closest&&e.target.closest(".bucket");if(!r||e.target!==r)return;
  if(e.key==="Enter"||e.key===" "){toggle(r);e.preventDefault();}
  else if(e.key==="ArrowDown"||e.key==="j"){var n=step(r,1);if(n){n.focus();e.preventDefault();}}
  else if(e.key==="ArrowUp"||e.key==="k"){var p=step(r,-1);if(p)p.focus();else filter.focus();e.preventDefault();}
  else if(e.key==="Home"){var f=rows.find(function(x){return !x.hidden;});if(f){f.focus();e.preventDefault();}}
});
document.addEventListener("keydown",function(e){
  if(e.key==="/"&&document.activeElement!==filter){filter.focus();e.preventDefault();}});
window.btauditTriage={sortBy:sortBy,applyFilter:applyFilter,toggle:toggle};
document.documentElement.setAttribute("data-ready","1");
})();
)js";

// A JSON string literal that is also safe inside a <script> element.
void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '<': out += "\\u003c"; break;  // never "</script>" or "<!--" inside the block
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void append_attribute(std::string& out, std::string_view name, std::string_view value) {
  out += ' ';
  out += name;
  out += "=\"";
  append_escaped(out, value);
  out += '"';
}

}  // namespace

std::string render_triage_html(const TriagePage& page) {
  std::int64_t first_day = page.generated_day, last_day = page.generated_day;
  bool any = false;
  for (const TriageBucket& b : page.buckets)
    for (const auto& [day, n] : b.days) {
      first_day = any ? std::min(first_day, day) : day;
      last_day = any ? std::max(last_day, day) : day;
      any = true;
    }
  std::string out;
  out.reserve(4096 + page.buckets.size() * 900);
  out +=
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "script-src 'unsafe-inline'; img-src data:\">"
      "<title>btaudit triage: ";
  append_escaped(out, page.source);
  out += "</title><style>";
  out += kStyle;
  out += "</style></head><body><header><h1>btaudit triage</h1><p class=\"meta\">";
  out += std::to_string(page.buckets.size()) + " buckets, " + std::to_string(page.reports) + " reports, from ";
  append_escaped(out, page.source);
  if (any) out += "; seen " + format_day(first_day) + " to " + format_day(last_day);
  out += "; made " + format_day(page.generated_day) +
         "</p><div class=\"tools\"><label for=\"filter\">Filter</label><input id=\"filter\" type=\"search\" "
         "autocomplete=\"off\" placeholder=\"words in title, kind, function or signature\" aria-controls=\"buckets\">"
         "<span id=\"shown\" aria-live=\"polite\">" +
         std::to_string(page.buckets.size()) + " of " + std::to_string(page.buckets.size()) +
         " buckets</span><span class=\"legend\" aria-label=\"verdict colours\"><span class=\"reliable\">reliable"
         "</span><span class=\"plausible\">plausible</span><span class=\"stale\">stale</span><span class=\"unknown\">"
         "unknown</span></span><span class=\"hint\">Enter opens a bucket, arrows move, / filters</span></div>"
         "</header><main><div id=\"buckets\" role=\"table\" aria-label=\"Buckets, largest first\" "
         "aria-rowcount=\"" +
         std::to_string(page.buckets.size() + 1) +
         "\"><div role=\"rowgroup\"><div class=\"row head\" id=\"head\" role=\"row\">"
         "<span class=\"c-count\" role=\"columnheader\" aria-sort=\"descending\"><button type=\"button\" "
         "data-key=\"count\">Count</button></span>"
         "<span class=\"c-last\" role=\"columnheader\"><button type=\"button\" data-key=\"last\">Last seen</button>"
         "</span><span class=\"c-kind\" role=\"columnheader\"><button type=\"button\" data-key=\"kind\">Kind</button>"
         "</span><span class=\"c-func\" role=\"columnheader\"><button type=\"button\" data-key=\"func\">Guilty "
         "function</button></span><span class=\"c-title\" role=\"columnheader\">Title</span>"
         "<span class=\"c-spark\" role=\"columnheader\">Reports per day</span></div></div>"
         "<div role=\"rowgroup\" id=\"rows\" data-per=\"" +
         std::to_string(kChunkRows) + "\">";
  for (std::size_t i = 0; i < page.buckets.size(); ++i) {
    if (i % kChunkRows == 0)
      out += i == 0 ? "<div class='chunk' role='none'>" : "</div><div class='chunk' role='none'>";
    const TriageBucket& tb = page.buckets[i];
    const Bucket& b = tb.bucket;
    const std::string last = tb.last_day() ? format_day(*tb.last_day()) : std::string();
    out += "<div class='row bucket' role='row' tabindex='0' aria-expanded='false' data-i='" + std::to_string(i) +
           "' data-count='" + std::to_string(b.count) + "' data-last='" + std::to_string(tb.last_day().value_or(0)) +
           "'";
    append_attribute(out, "data-sig", b.signature);
    out += "><span class='c-count' role='cell'>" + std::to_string(b.count) +
           "</span><span class='c-last' role='cell'>" + last + "</span><span class='c-kind' role='cell'>";
    append_escaped(out, b.kind);
    out += "</span><span class='c-func' role='cell'>";
    append_escaped(out, b.guilty_function.value_or(""));
    out += "</span><span class='c-title' role='cell'>";
    append_escaped(out, b.title);
    // The row's chart is an SVG image in a data URL: no DOM nodes, drawn only when in view.
    const DaySparkline spark = day_sparkline(tb, first_day, last_day, 120, 18);
    out += "</span><span class='c-spark' role='img'";
    append_attribute(out, "aria-label", spark.label);
    out +=
        " style='background-image:url(&quot;data:image/svg+xml,%3Csvg xmlns=%27http://www.w3.org/2000/svg%27 "
        "width=%27120%27 height=%2718%27%3E%3Cpath fill=%27%233d6fb6%27 d=%27" +
        spark.path + "%27/%3E%3C/svg%3E&quot;)'></span></div>";
  }
  if (!page.buckets.empty()) out += "</div>";
  out += "</div></div></main><script type='application/json' id='reasons'>{";
  for (int r = 0; r <= static_cast<int>(Reason::NoAddress); ++r) {
    if (r) out += ",";
    append_json_string(out, reason_code(static_cast<Reason>(r)));
    out += ":";
    append_json_string(out, reason_description(static_cast<Reason>(r)));
  }
  out += "}</script><script type='application/octet-stream' id='details' data-encoding='gzip+base64'>";
  for (std::size_t first = 0; first < page.buckets.size(); first += kChunkRows) {
    std::string pack = "[";
    for (std::size_t i = first; i < std::min(page.buckets.size(), first + kChunkRows); ++i) {
      if (i > first) pack += ",\n";
      append_json_string(pack, render_triage_detail(page.buckets[i], first_day, last_day));
    }
    pack += "]";
    out += "\n" + gzip_base64(pack);
  }
  out += "</script><script>";
  out += kScript;
  out += "</script></body></html>\n";
  return out;
}

}  // namespace btaudit
