// Loaded with --import into the benchmarked CLI process (Linux): at exit, prints the CPU time
// (user + system) of each of its threads that used more than 50 ms, largest first, read from
// /proc/self/task every 50 ms (a reader thread has ended before the process does).
import { readdirSync, readFileSync } from 'node:fs';

const cpu = new Map();
function sample() {
  let tasks = [];
  try { tasks = readdirSync('/proc/self/task'); } catch { return; }
  for (const t of tasks) {
    try {
      const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu.set(t, (Number(f[11]) + Number(f[12])) / 100); // utime, stime in clock ticks
    } catch { /* the thread ended */ }
  }
}
setInterval(sample, 50).unref();
process.on('exit', () => {
  sample();
  const secs = [...cpu.values()].filter((s) => s > 0.05).sort((a, b) => b - a).map((s) => s.toFixed(2));
  process.stderr.write(`\nBENCH_THREAD_CPU_S=${secs.join(',')}\n`);
});
