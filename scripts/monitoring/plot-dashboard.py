#!/usr/bin/python3
# Draws the picture of the dashboard in docs/monitoring.md without a Grafana server: every panel of
# deploy/monitoring/dashboard.json at its place in the grid, each query's range result as
# test/prometheus/prometheus-dashboard.test.ts fetched it from a real Prometheus
# (KPN_DASHBOARD_DATA=file.json). It is a plot of the queries' data in the dashboard's layout, not
# a Grafana screenshot: Grafana's styling, units and legends differ.
#
#   /usr/bin/python3 scripts/monitoring/plot-dashboard.py deploy/monitoring/dashboard.json DATA.json OUT.png
# Needs Debian's python3-matplotlib.
import json
import sys
from datetime import datetime, timezone

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

UNIT_SCALE = {"bytes": (2**20, "MiB"), "percentunit": (0.01, "%")}


def main(dashboard_file, data_file, out_file):
    dash = json.load(open(dashboard_file))
    data = json.load(open(data_file))
    panels = dash["panels"]
    rows = max(p["gridPos"]["y"] + p["gridPos"]["h"] for p in panels)
    unit_h = 0.42  # inches per grid row
    fig = plt.figure(figsize=(22, rows * unit_h + 0.8), dpi=80)
    fig.patch.set_facecolor("#181b1f")
    top = 1 - 0.8 / (rows * unit_h + 0.8)
    fig.suptitle(
        "kube-proxy-native dashboard (deploy/monitoring/dashboard.json): each panel's queries plotted from a real "
        "Prometheus scraping the proxy in a test run; not a Grafana screenshot",
        color="#d8d9da", fontsize=12, y=0.995)
    t0 = data["start"]

    def box(gp):
        x0, w = gp["x"] / 24, gp["w"] / 24
        y1 = top - gp["y"] / rows * top
        h = gp["h"] / rows * top
        return [x0 + 0.035 * w, y1 - h + 0.30 / (rows * unit_h), w * 0.93, h - 0.62 / (rows * unit_h)]

    for p in panels:
        gp = p["gridPos"]
        if p["type"] == "row":
            fig.text(0.005, top - (gp["y"] + 0.5) / rows * top, p["title"], color="#ffffff", fontsize=12, weight="bold", va="center")
            continue
        got = data["panels"].get(p["title"], {"series": []})
        unit = p.get("fieldConfig", {}).get("defaults", {}).get("unit", "")
        scale, label = UNIT_SCALE.get(unit, (1, unit if unit not in ("none", "short") else ""))
        ax = fig.add_axes(box(gp))
        ax.set_facecolor("#111217")
        for s in ax.spines.values():
            s.set_color("#2c3235")
        ax.set_title(p["title"], color="#d8d9da", fontsize=10, loc="left")
        ax.tick_params(colors="#8e8e8e", labelsize=7)
        if p["type"] == "stat":
            vals = [float(v[1]) for s in got["series"] for v in s["values"][-1:]]
            text = "no data" if not vals else f"{vals[-1] / scale:.3g} {label}".strip()
            ax.text(0.5, 0.45, text, color="#73bf69", fontsize=22, ha="center", va="center", transform=ax.transAxes)
            ax.set_xticks([]); ax.set_yticks([])
            continue
        for s in got["series"]:
            xs = [(float(t) - t0) for t, _ in s["values"]]
            ys = [float(v) / scale for _, v in s["values"]]
            ax.plot(xs, ys, linewidth=1.2, label=s["legend"][:40])
        ax.set_xlabel("seconds into the run", color="#8e8e8e", fontsize=7)
        if label:
            ax.set_ylabel(label, color="#8e8e8e", fontsize=7)
        ax.grid(color="#2c3235", linewidth=0.5)
        if got["series"]:
            ax.legend(fontsize=6, loc="upper left", facecolor="#181b1f", edgecolor="#2c3235", labelcolor="#d8d9da")
        else:
            ax.text(0.5, 0.5, "no data", color="#8e8e8e", ha="center", transform=ax.transAxes)
    when = datetime.fromtimestamp(data["end"], timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    fig.text(0.995, 0.003, f"run ending {when}", color="#8e8e8e", fontsize=8, ha="right")
    fig.savefig(out_file, facecolor=fig.get_facecolor())


if __name__ == "__main__":
    main(*sys.argv[1:4])
