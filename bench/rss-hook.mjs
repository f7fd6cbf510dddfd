// Loaded with --import into the benchmarked CLI process: reports its own peak resident memory
// and CPU time (user + system, all its threads).
process.on('exit', () => {
  const u = process.resourceUsage();
  process.stderr.write(`\nBENCH_MAX_RSS_KB=${u.maxRSS}\nBENCH_CPU_US=${u.userCPUTime + u.systemCPUTime}\n`);
});
