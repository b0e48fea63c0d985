/**
 * `npm run fuzz`: the property-based tests of test/fuzz with many more cases than `npm test` runs.
 *
 *   npm run fuzz                          # 2,000 cases per property, a random seed
 *   CADRE_FUZZ_RUNS=20000 npm run fuzz    # more cases
 *   CADRE_FUZZ_SEED=123456 npm run fuzz   # replay the seed a failure printed
 *
 * Arguments after `--` go to vitest (e.g. `-- -t parsers`).
 */
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const env = { ...process.env, CADRE_FUZZ_RUNS: process.env.CADRE_FUZZ_RUNS ?? "2000" };
const vitest = join(repo, "node_modules", "vitest", "vitest.mjs");
const run = spawnSync(process.execPath, [vitest, "run", "test/fuzz", ...process.argv.slice(2)], { cwd: repo, env, stdio: "inherit" });
process.exit(run.status ?? 1);
