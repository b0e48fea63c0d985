// cadre's pi extension entry in the npm package: the build. In a checkout pi prefers the
// `index.ts` next to this file, which loads the sources (ADR 0003).
export { default } from "../dist/hosts/pi/extension.js";
