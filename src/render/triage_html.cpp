// The triage page: the bucket table rendered as HTML rows (so that it prints and
// reads without script), the per-bucket details as HTML strings in one JSON
// block that the script parses the first time a bucket is opened (10,000
// buckets of traces as DOM at load would cost seconds), and the style and
// script inline.
#include "render/triage_html.h"

#include <algorithm>

#include "render/markup_escape.h"

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
table.buckets{border-collapse:collapse;width:100%;table-layout:fixed;margin-top:8px}
.buckets th,.buckets td{border-bottom:1px solid var(--line);padding:4px 6px;text-align:left;vertical-align:top;overflow:hidden;text-overflow:ellipsis}
.buckets thead th{background:var(--head);position:sticky;top:0;z-index:1}
.buckets th button{font:inherit;font-weight:600;border:0;background:none;padding:2px 0;cursor:pointer;color:inherit}
.buckets th button::after{content:"";margin-left:4px;color:var(--muted)}
.buckets th[aria-sort=ascending] button::after{content:"\25B2"}
.buckets th[aria-sort=descending] button::after{content:"\25BC"}
.c-count{width:6em}.c-last{width:7.5em}.c-kind{width:9em}.c-func{width:17%}.c-spark{width:130px}
td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.bucket{cursor:pointer}
tr.bucket:hover{background:#f7f9fc}
tr.bucket[aria-expanded=true]{background:#eef3fb}
tr.bucket:focus,.buckets th button:focus,#filter:focus{outline:2px solid var(--focus);outline-offset:-2px}
tr.bucket td.title{white-space:nowrap}
code{font:12px/1.3 ui-monospace,"DejaVu Sans Mono",monospace}
.spark path{fill:#3d6fb6}
tr.detail>td{background:#fbfcfe;padding:8px 12px 16px}
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
  .buckets thead th{position:static}
  .buckets th button::after{content:""}
  tr.bucket[hidden],tr.detail[hidden]{display:none}
  tr.bucket,tr.detail{break-inside:avoid}
  table.trace tr{break-inside:avoid}
  body{font-size:11px}
  tr.bucket td.title{white-space:normal}
  a{color:inherit}
}
)css";

// Sorting moves each bucket row with its detail row; filtering hides rows whose
// text (title, kind, function, signature) lacks every typed word.
constexpr std::string_view kScript = R"js(
(function(){
"use strict";
var table=document.getElementById("buckets"),body=table.tBodies[0];
var rows=Array.prototype.slice.call(body.rows);
var text=rows.map(function(r){return (r.textContent+" "+r.getAttribute("data-sig")).toLowerCase();});
var details=null,shown=document.getElementById("shown"),filter=document.getElementById("filter");
function detailHtml(i){
  if(!details)details=JSON.parse(document.getElementById("details").textContent);
  return details[i];
}
function toggle(row){
  var open=row.getAttribute("aria-expanded")==="true",next=row.nextElementSibling;
  if(open){if(next&&next.classList.contains("detail"))next.remove();row.setAttribute("aria-expanded","false");return;}
  var tr=document.createElement("tr");tr.className="detail";tr.id="d"+row.getAttribute("data-i");
  var td=document.createElement("td");td.colSpan=6;td.innerHTML=detailHtml(+row.getAttribute("data-i"));
  tr.appendChild(td);row.after(tr);row.setAttribute("aria-expanded","true");
}
var keys={count:function(r){return +r.getAttribute("data-count");},
  last:function(r){return +r.getAttribute("data-last");},
  kind:function(r){return r.getAttribute("data-kind");},
  func:function(r){return r.getAttribute("data-func");}};
function sortBy(key,dir){
  var get=keys[key],idx=rows.map(function(r,i){return i;});
  var vals=rows.map(get),num=typeof vals[0]==="number";
  idx.sort(function(a,b){
    var x=vals[a],y=vals[b],c=num?x-y:(x<y?-1:x>y?1:0);
    if(c===0)c=(+rows[b].getAttribute("data-count"))-(+rows[a].getAttribute("data-count"));
    if(c===0)c=a-b;else if(dir==="descending")c=-c;
    return c;});
  var frag=document.createDocumentFragment();
  idx.forEach(function(i){var r=rows[i],d=r.nextElementSibling;frag.appendChild(r);
    if(d&&d.classList.contains("detail"))frag.appendChild(d);});
  body.appendChild(frag);
  rows=idx.map(function(i){return rows[i];});text=idx.map(function(i){return text[i];});
  Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th){
    var b=th.querySelector("button");if(!b)return;
    if(b.getAttribute("data-key")===key)th.setAttribute("aria-sort",dir);else th.removeAttribute("aria-sort");});
}
Array.prototype.forEach.call(table.tHead.querySelectorAll("button"),function(b){
  b.addEventListener("click",function(){
    var th=b.parentNode,cur=th.getAttribute("aria-sort"),key=b.getAttribute("data-key");
    var first=(key==="kind"||key==="func")?"ascending":"descending";
    sortBy(key,cur?(cur==="ascending"?"descending":"ascending"):first);});});
function applyFilter(){
  var words=filter.value.toLowerCase().split(/\s+/).filter(Boolean),n=0;
  rows.forEach(function(r,i){
    var ok=words.every(function(w){return text[i].indexOf(w)>=0;});
    r.hidden=!ok;var d=r.nextElementSibling;if(d&&d.classList.contains("detail"))d.hidden=!ok;if(ok)n++;});
  shown.textContent=n+" of "+rows.length+" buckets";
}
var timer=0;
filter.addEventListener("input",function(){clearTimeout(timer);timer=setTimeout(applyFilter,rows.length>2000?120:0);});
filter.addEventListener("keydown",function(e){
  if(e.key==="ArrowDown"){var r=rows.find(function(x){return !x.hidden;});if(r){r.focus();e.preventDefault();}}
  if(e.key==="Enter"){clearTimeout(timer);applyFilter();}});
function step(row,dir){
  for(var r=row;;){r=dir>0?r.nextElementSibling:r.previousElementSibling;
    if(!r)return null;if(r.classList.contains("bucket")&&!r.hidden)return r;}
}
body.addEventListener("click",function(e){
  if(e.target.closest("tr.detail"))return;var r=e.target.closest("tr.bucket");if(r){r.focus();toggle(r);}});
body.addEventListener("keydown",function(e){
  var r=e.target.closest&&e.target.closest("tr.bucket");if(!r)return;
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
         "</header><main><table class=\"buckets\" id=\"buckets\"><caption hidden>Buckets, largest first</caption>"
         "<colgroup><col class=\"c-count\"><col class=\"c-last\"><col class=\"c-kind\"><col class=\"c-func\"><col>"
         "<col class=\"c-spark\"></colgroup><thead><tr>"
         "<th scope=\"col\" aria-sort=\"descending\"><button type=\"button\" data-key=\"count\">Count</button></th>"
         "<th scope=\"col\"><button type=\"button\" data-key=\"last\">Last seen</button></th>"
         "<th scope=\"col\"><button type=\"button\" data-key=\"kind\">Kind</button></th>"
         "<th scope=\"col\"><button type=\"button\" data-key=\"func\">Guilty function</button></th>"
         "<th scope=\"col\">Title</th><th scope=\"col\">Reports per day</th></tr></thead><tbody>";
  for (std::size_t i = 0; i < page.buckets.size(); ++i) {
    const TriageBucket& tb = page.buckets[i];
    const Bucket& b = tb.bucket;
    const std::string last = tb.last_day() ? format_day(*tb.last_day()) : std::string();
    out += "<tr class=\"bucket\" tabindex=\"0\" aria-expanded=\"false\" data-i=\"" + std::to_string(i) +
           "\" data-count=\"" + std::to_string(b.count) + "\" data-last=\"" +
           std::to_string(tb.last_day().value_or(0)) + "\"";
    append_attribute(out, "data-kind", b.kind);
    append_attribute(out, "data-func", b.guilty_function.value_or(""));
    append_attribute(out, "data-sig", b.signature);
    out += "><td class=\"num\">" + std::to_string(b.count) + "</td><td>" + last + "</td><td>";
    append_escaped(out, b.kind);
    out += "</td><td><code>";
    append_escaped(out, b.guilty_function.value_or(""));
    out += "</code></td><td class=\"title\"";
    append_attribute(out, "title", b.title);
    out += ">";
    append_escaped(out, b.title);
    out += "</td><td>" + render_day_sparkline(tb, first_day, last_day, 120, 18) + "</td></tr>";
  }
  out += "</tbody></table></main><script type=\"application/json\" id=\"details\">[";
  for (std::size_t i = 0; i < page.buckets.size(); ++i) {
    if (i) out += ",\n";
    append_json_string(out, render_triage_detail(page.buckets[i], first_day, last_day));
  }
  out += "]</script><script>";
  out += kScript;
  out += "</script></body></html>\n";
  return out;
}

}  // namespace btaudit
