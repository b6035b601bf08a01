// Where things live in a checkout, independent of the current directory.
import { fileURLToPath } from "node:url";
import path from "node:path";

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const artifactsDir = path.join(projectRoot, "artifacts");
export const defaultStateDir = ".relay";
