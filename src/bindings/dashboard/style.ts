/** The dashboard's style sheet, served from our origin (the policy forbids inline styles). Same look as the buyer pages. */
export const DASHBOARD_CSS = `*{box-sizing:border-box}body{font:16px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d1d1f;background:#f4f4f6}
header{background:#fff;border-bottom:1px solid #ddd}header .bar{max-width:80rem;margin:0 auto;padding:.6rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:.4rem 1rem}
header .biz{font-weight:700;margin-right:auto}nav{display:flex;flex-wrap:wrap;gap:.2rem;order:3;flex-basis:100%}
@media (max-width:40rem){nav{flex-wrap:nowrap;overflow-x:auto;scrollbar-width:thin}nav a{white-space:nowrap}}
nav a{padding:.45rem .7rem;border-radius:8px;text-decoration:none;min-height:44px;display:inline-flex;align-items:center}
nav a[aria-current=page]{background:#e6ecfb;font-weight:600}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
main{max-width:80rem;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:.2rem 0 .8rem}h2{font-size:1.1rem;margin:0 0 .6rem}
.card{background:#fff;border-radius:12px;padding:1rem 1.1rem;margin:0 0 1rem;box-shadow:0 1px 2px rgba(0,0,0,.08);overflow-x:auto}
.figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.8rem;margin:0 0 1rem}
.figure{background:#fff;border-radius:12px;padding:.8rem 1rem;box-shadow:0 1px 2px rgba(0,0,0,.08)}.figure b{display:block;font-size:1.6rem}
.figure span{color:#4a4a4f;font-size:.9rem}
.state{display:inline-block;font-weight:600;border-radius:999px;padding:.05rem .6rem;font-size:.85rem}
.s-confirmed,.s-completed,.s-delivered,.s-in_progress,.s-sent{background:#e3f5e8;color:#0b5a24}.s-pending,.s-requires_action,.s-queued{background:#fff3d6;color:#6b4400}
.s-canceled,.s-no_show,.s-failed{background:#fde4e4;color:#8a1414}.s-ok{background:#e3f5e8;color:#0b5a24}.s-skipped,.s-waiting,.s-offered{background:#ececf0;color:#333}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid #e5e5ea;vertical-align:top}th{font-size:.85rem;color:#4a4a4f}
.cal{table-layout:fixed;min-width:36rem}.cal th{position:sticky;top:0;background:#fff}.cal td.hour,.cal th:first-child{width:4.5rem;color:#4a4a4f;font-variant-numeric:tabular-nums}
.ev{display:block;border-left:4px solid #1a4fd6;background:#eef2fd;border-radius:6px;padding:.25rem .45rem;margin:0 0 .3rem;text-decoration:none;color:#1d1d1f;font-size:.9rem}
.ev.s-pending{border-color:#b27600;background:#fff8e6}.ev.s-canceled{border-color:#b32020;background:#fdf0f0;text-decoration:line-through}
.ev.busy{border-color:#6b6b6b;background:repeating-linear-gradient(135deg,#f1f1f1,#f1f1f1 6px,#e4e4e4 6px,#e4e4e4 12px);color:#333}
form.inline{display:inline}form.filters,form.stack{display:flex;flex-wrap:wrap;gap:.6rem;align-items:flex-end}
label{display:flex;flex-direction:column;font-size:.85rem;color:#4a4a4f;gap:.2rem}
input,select,textarea{font:inherit;padding:.5rem .6rem;border:1px solid #b8b8c0;border-radius:8px;min-height:44px;background:#fff;color:#1d1d1f}
button,.button{font:inherit;font-weight:600;border-radius:10px;padding:.5rem 1rem;border:2px solid #1a4fd6;min-height:44px;cursor:pointer;text-decoration:none;display:inline-block;background:#fff;color:#1a4fd6}
button.primary{background:#1a4fd6;color:#fff}button.danger,.button.danger{border-color:#b32020;color:#b32020}
a{color:#1a4fd6}.note{color:#4a4a4f;font-size:.9rem}.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:.6rem 0 0}
.flash{border-radius:10px;padding:.7rem 1rem;margin:0 0 1rem;font-weight:600}.flash.ok{background:#e3f5e8;color:#0b5a24}.flash.bad{background:#fde4e4;color:#8a1414}.flash.warn{background:#fdf1d8;color:#6b4500}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0}dt{color:#4a4a4f}dd{margin:0}
.login{max-width:24rem;margin:3rem auto}.field{display:flex;flex-direction:column;gap:.2rem;font-size:.85rem;color:#4a4a4f;max-width:100%}.field label{display:block}
fieldset.choices{border:0;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:.3rem .9rem}fieldset.choices legend{font-size:.85rem;color:#4a4a4f;padding:0;margin:0 0 .3rem}fieldset.choices label{flex-direction:row;align-items:center;gap:.4rem;color:#1d1d1f;font-size:1rem;min-height:44px}fieldset.choices input{min-height:0;width:1.1rem;height:1.1rem}
fieldset.slots{border:0;padding:0;margin:.6rem 0;display:grid;grid-template-columns:repeat(auto-fill,minmax(6.5rem,1fr));gap:.4rem}fieldset.slots legend{font-weight:600;margin:0 0 .4rem;padding:0}.times h3{font-size:1rem;margin:1rem 0 0}
.slots label{flex-direction:row;align-items:center;gap:.4rem;border:1px solid #b8b8c0;border-radius:8px;padding:.4rem .5rem;min-height:44px;color:#1d1d1f;font-size:1rem;flex-wrap:wrap;font-variant-numeric:tabular-nums}
.slots input{min-height:0;padding:0;margin:0;width:1.1rem;height:1.1rem}.slots small{color:#4a4a4f;width:100%;padding-left:1.5rem;font-size:.8rem}
p.secret code{display:block;font-size:1.1rem;padding:.8rem;background:#f4f4f6;border:1px dashed #4a4a4f;border-radius:8px;word-break:break-all;user-select:all}.login form{flex-direction:column;align-items:stretch}
@media (max-width:40rem){main{padding:.6rem}.cal{min-width:0}.cal thead{display:none}.cal tr.empty{display:none}.cal tr,.cal td{display:block}.cal td.hour{width:auto;border:0;padding-bottom:0;font-weight:600}
.cal td:empty{display:none}.cal td[data-col]::before{content:attr(data-col);display:block;font-size:.8rem;color:#4a4a4f}
.list td[data-col]::before{content:attr(data-col) ": ";color:#4a4a4f;font-size:.85rem}
.list.hours tr{display:grid;grid-template-columns:1fr 1fr;gap:.2rem .6rem}.list.hours td.day{grid-column:1/-1;font-weight:600}.list.hours td[data-col]::before{content:attr(data-col);display:block}.hours input{width:100%}.list thead{display:none}.list tr{display:block;border-bottom:1px solid #e5e5ea;padding:.4rem 0}.list td{display:block;border:0;padding:.1rem .3rem}
dl{grid-template-columns:1fr}dt{margin-top:.4rem}}`;
