import cliProgress from 'cli-progress';

export interface Progress {
  /** Records that `done` of the total units are finished (and, for timed work, an optional live rate). */
  update(done: number, rate?: number): void;
  /** Finishes the display: the bar's last state stays on screen, or a last plain line is printed. */
  stop(): void;
}

const formatCount = (n: number) => Math.round(n).toLocaleString('en');

/**
 * A progress display for `total` units of work (`noun`: "customers", "s"): on a terminal a bar with the
 * count, the rate and the time left, redrawn in place; otherwise (CI, pipes, files) a plain line at each
 * of `lines` steps (default 10: every tenth of the work; 1: only at the end), so logs stay short. The rate
 * is units per second since the start unless `update` is given one (e.g. requests a second of a load test).
 */
export function progress(
  label: string,
  total: number,
  noun: string,
  options: { lines?: number; stream?: NodeJS.WriteStream } = {},
): Progress {
  const { lines = 10, stream = process.stdout } = options;
  const started = Date.now();
  const rateOf = (done: number, rate?: number) => rate ?? done / Math.max((Date.now() - started) / 1000, 0.001);
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {percentage}% | {count} / {all} ${noun} | {rate} | ETA {eta_formatted}`,
        stream,
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 20,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { count: '0', all: formatCount(total), rate: '' });
    return {
      update: (done, rate) =>
        bar.update(done, { count: formatCount(done), rate: `${formatCount(rateOf(done, rate))}/s` }),
      stop: () => bar.stop(),
    };
  }
  let printedStep = 0;
  let last = { done: 0, rate: undefined as number | undefined };
  const line = (done: number, rate?: number) =>
    stream.write(
      `${label}: ${formatCount(done)} / ${formatCount(total)} ${noun} (${formatCount(rateOf(done, rate))}/s)\n`,
    );
  return {
    update: (done, rate) => {
      last = { done, rate };
      const step = Math.floor((done / total) * lines);
      if (step > printedStep && done < total) {
        printedStep = step;
        line(done, rate);
      }
    },
    stop: () => line(last.done, last.rate),
  };
}
