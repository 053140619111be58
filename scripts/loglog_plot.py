"""loglog_plot.py: the log-log figure of the scale benchmarks (bench_import.py,
measure_descriptor_memory.py): measured series against a size, with a dotted linear reference
through the largest point, written as PNG with matplotlib's Agg backend (no display needed)."""


def save_loglog(path, xs, series, linear, xlabel, ylabel, title, hline=None):
    """series: [(label, ys, style)]; linear: (label, ys_at_largest) for y = x * slope through
    the last point of the first series; hline: (y, label) or None."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, ys, style in series:
        ax.loglog(xs, ys, style, label=label)
    slope = series[0][1][-1] / xs[-1]
    ax.loglog(xs, [x * slope for x in xs], ":", color="grey", label=linear(slope))
    if hline:
        ax.axhline(hline[0], color="red", lw=0.8, label=hline[1])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"plot in {path}")
