package plots

import (
	"bytes"
	"fmt"
	"html/template"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/internal/fsutil"
)

// The interactive η-warp explorer: one self-contained page (echarts inlined) with sliders for
// the SD3 shift r, the c-function's α and σ_end, the log-SNR range [λ_min, λ_max] and the step
// count N, redrawing η(σ), ρ(s), η(ρ(s)) and the step sizes η(ρ(i/N))/N of all four warps at
// once, with the c-function's normaliser A. The warps are re-implemented in the page's script
// (the formulas of eqflib/warp.go); TestWarpExplorerMatchesEqflib checks them against eqflib in
// headless Chromium. Initial values can be given in the URL: ?r=3&alpha=0.8&send=0.001&lmin=-15&lmax=15&n=10.

var explorerTmpl = template.Must(template.New("explorer").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>η-warp explorer</title>
<script>{{.ECharts}}</script>
<style>
body{font-family:sans-serif;margin:12px;background:#fff}
#ctl{display:grid;grid-template-columns:repeat(3,minmax(240px,1fr));gap:4px 18px;margin-bottom:8px}
#ctl label{display:flex;align-items:center;gap:6px;font-size:13px}
#ctl input{flex:1}
.grid{display:grid;grid-template-columns:repeat(2,1fr);gap:8px}
.chart{height:330px;border:1px solid #eee}
#values{display:none}
</style></head><body>
<h3>η-warp explorer <small style="font-weight:normal">— transport (solid) vs attractor (dashed) warps</small></h3>
<div id="ctl">
<label>SD3 shift r <input id="r" type="range" min="0.2" max="10" step="0.05"><span id="r_v"></span></label>
<label>c-function α <input id="alpha" type="range" min="0.05" max="0.95" step="0.01"><span id="alpha_v"></span></label>
<label>c-function log₁₀ σ_end <input id="lsend" type="range" min="-5" max="-0.5" step="0.05"><span id="lsend_v"></span></label>
<label>log-SNR λ_min <input id="lmin" type="range" min="-20" max="0" step="0.5"><span id="lmin_v"></span></label>
<label>log-SNR λ_max <input id="lmax" type="range" min="0" max="20" step="0.5"><span id="lmax_v"></span></label>
<label>steps N <input id="n" type="range" min="1" max="100" step="1"><span id="n_v"></span></label>
</div>
<div id="info" style="font-size:13px;margin-bottom:6px"></div>
<div class="grid">
<div id="c_eta" class="chart"></div><div id="c_rho" class="chart"></div>
<div id="c_comp" class="chart"></div><div id="c_step" class="chart"></div>
</div>
<pre id="values"></pre>
<script>
"use strict";
// The four warps of eqflib/warp.go: eta(σ), rho(s), attractor.
function identity() { return {name: "identity", attractor: false, eta: s => 1, rho: s => 1 - s}; }
function sd3(r) {
  return {name: "sd3(r=" + r + ")", attractor: false,
    eta: s => (r - (r - 1) * s) * (r - (r - 1) * s) / r,
    rho: s => r * (1 - s) / (r - (r - 1) * s)};
}
function cfun(alpha, send) {
  const knee = 1 - alpha, A = alpha + knee * Math.log(knee / send), s1 = alpha / A;
  return {name: "c(α=" + alpha + ", σ_end=" + send.toPrecision(3) + ")", attractor: true, A: A,
    eta: s => A * Math.min(1, s / knee),
    rho: s => s <= s1 ? 1 - A * s : knee * Math.exp(-A * (s - s1) / knee)};
}
function logsnr(lmin, lmax) {
  const k = (lmax - lmin) / 2;
  return {name: "logsnr(λ=" + lmin + "…" + lmax + ")", attractor: true,
    eta: s => k * s * (1 - s),
    rho: s => 1 / (1 + Math.exp((lmin + s * (lmax - lmin)) / 2))};
}
const ids = ["r", "alpha", "lsend", "lmin", "lmax", "n"];
const defaults = {r: {{.R}}, alpha: {{.Alpha}}, lsend: Math.log10({{.SigmaEnd}}), lmin: {{.LMin}}, lmax: {{.LMax}}, n: {{.N}}};
const q = new URLSearchParams(location.search);
if (q.has("send")) q.set("lsend", Math.log10(+q.get("send")));
for (const id of ids) {
  const el = document.getElementById(id);
  el.value = q.has(id) ? q.get(id) : defaults[id];
  el.oninput = redraw;
}
const colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
const charts = {};
for (const c of ["eta", "rho", "comp", "step"]) charts[c] = echarts.init(document.getElementById("c_" + c));
function val(id) { return +document.getElementById(id).value; }
function series(ws, f, n) {
  return ws.map((w, k) => ({name: w.name + (w.attractor ? " (attractor)" : " (transport)"), type: "line", showSymbol: false,
    lineStyle: {color: colors[k], width: 2, type: w.attractor ? "dashed" : "solid"}, itemStyle: {color: colors[k]},
    data: Array.from({length: n + 1}, (_, i) => f(w, i / n))}));
}
function option(title, xname, yname, ser, logy) {
  return {title: {text: title, left: "center", textStyle: {fontSize: 14}}, animation: false,
    tooltip: {trigger: "axis"}, legend: {bottom: 0, textStyle: {fontSize: 11}},
    grid: {top: 40, bottom: 95, left: 60, right: 20},
    xAxis: {type: "value", name: xname, nameLocation: "middle", nameGap: 24},
    yAxis: {type: logy ? "log" : "value", name: yname, nameLocation: "middle", nameGap: 42}, series: ser};
}
function redraw() {
  for (const id of ids) document.getElementById(id + "_v").textContent = id === "lsend" ? Math.pow(10, val(id)).toPrecision(3) : val(id);
  const n = Math.round(val("n"));
  const ws = [identity(), sd3(val("r")), cfun(val("alpha"), Math.pow(10, val("lsend"))), logsnr(val("lmin"), val("lmax"))];
  const P = 400;
  charts.eta.setOption(option("(a) warp η(σ)", "noise level σ", "η(σ)", series(ws, (w, x) => [x, w.eta(x)], P)), true);
  charts.rho.setOption(option("(b) induced trajectory ρ(s)", "solver time s", "σ = ρ(s)", series(ws, (w, s) => [s, w.rho(s)], P)), true);
  charts.comp.setOption(option("(c) η(ρ(s))", "solver time s", "multiplier", series(ws, (w, s) => [s, w.eta(w.rho(s))], P)), true);
  const steps = ws.map((w, k) => ({name: w.name, type: "line", symbolSize: 5, lineStyle: {color: colors[k], type: w.attractor ? "dashed" : "solid"},
    itemStyle: {color: colors[k]}, data: Array.from({length: n}, (_, i) => [i, w.eta(w.rho(i / n)) / n])}));
  charts.step.setOption(option("(d) step sizes η(ρ(i/N))/N, N = " + n, "step i", "step size", steps, true), true);
  document.getElementById("info").textContent = "c-function normaliser A = " + ws[2].A.toFixed(6) +
    "; terminal levels ρ(1): " + ws.map(w => w.name + " " + w.rho(1).toExponential(3)).join(", ");
  // Values on fixed grids, for tests and for copying.
  const grid = Array.from({length: 11}, (_, i) => i / 10);
  document.getElementById("values").textContent = JSON.stringify({
    A: ws[2].A, names: ws.map(w => w.name),
    eta: ws.map(w => grid.map(w.eta)), rho: ws.map(w => grid.map(w.rho)),
    steps: ws.map(w => Array.from({length: n}, (_, i) => w.eta(w.rho(i / n)) / n))});
}
redraw();
</script></body></html>
`))

// WarpExplorerHTML renders the explorer, starting from the paper's warp parameters.
func WarpExplorerHTML() ([]byte, error) {
	js, err := EChartsScript()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	err = explorerTmpl.Execute(&buf, map[string]any{
		"ECharts": template.JS(js), "R": eqflib.DefaultSD3Shift, "Alpha": eqflib.DefaultCAlpha, "SigmaEnd": eqflib.DefaultCSigmaEnd,
		"LMin": eqflib.DefaultLogSNRMin, "LMax": eqflib.DefaultLogSNRMax, "N": 10,
	})
	if err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	return buf.Bytes(), nil
}

// WarpExplorer writes the explorer page to path, atomically.
func WarpExplorer(path string) error {
	b, err := WarpExplorerHTML()
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, b)
}
