// Loaded with --import into the benchmarked CLI process: reports its own peak resident memory.
process.on('exit', () => {
  process.stderr.write(`\nBENCH_MAX_RSS_KB=${process.resourceUsage().maxRSS}\n`);
});
