/** Child process for the usage race test: bumps one skill N times. Args: skillsDir name count. */
import { UsageStore } from "../../src/skills/usage.js";

const [skillsDir, name, count] = process.argv.slice(2);
const store = new UsageStore(skillsDir as string);
for (let i = 0; i < Number(count); i++) await store.bump(name as string, "view");
