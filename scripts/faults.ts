/**
 * `npm run faults`: the load-and-faults test (test/runtime/faults.test.ts) over more seeded rounds
 * than `npm test` runs.
 *
 *   npm run faults                              # 10 rounds of 200 children, seeds from a random one
 *   CADRE_FAULTS_ROUNDS=50 npm run faults       # more rounds
 *   CADRE_FAULTS_SPAWNS=1000 npm run faults     # more children per round
 *   CADRE_FAULTS_SEED=123456 npm run faults     # replay the seed a failure printed (then the next ones)
 *
 * Arguments after `--` go to vitest.
 */
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const env = { ...process.env, CADRE_FAULTS_ROUNDS: process.env.CADRE_FAULTS_ROUNDS ?? "10" };
const vitest = join(repo, "node_modules", "vitest", "vitest.mjs");
const run = spawnSync(process.execPath, [vitest, "run", "test/runtime/faults.test.ts", ...process.argv.slice(2)], { cwd: repo, env, stdio: "inherit" });
process.exit(run.status ?? 1);
