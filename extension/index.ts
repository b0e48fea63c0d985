/**
 * cadre's pi extension entry in a checkout (package.json `"pi": {"extensions": ["./extension"]}`):
 * pi loads a directory's `index.ts` before its `index.js`, so a checkout runs the TypeScript
 * sources. The npm package ships only `index.js`, which loads the build (ADR 0003).
 */
export { default } from "../src/hosts/pi/extension.ts";
