// The relayer's session-signing secret: 32 random bytes in <stateDir>/auth-secret, readable by
// its owner only. Kept on disk so owner sessions outlive a restart.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { privateDir, tightenFile } from "../../private-files.ts";

export const AUTH_SECRET_FILE = "auth-secret";
export const AUTH_SECRET_BYTES = 32;

function readSecret(file: string): Uint8Array {
  const secret = fs.readFileSync(file);
  if (secret.length !== AUTH_SECRET_BYTES) {
    throw new Error(`${file} holds ${secret.length} bytes, not ${AUTH_SECRET_BYTES}; delete it to create a new secret (owners will sign in again)`);
  }
  return new Uint8Array(secret);
}

/**
 * The secret in `<stateDir>/auth-secret`, created (with the directory) when missing. Creation is
 * atomic: the bytes are written to a private temporary file, flushed, then hard-linked into place,
 * which fails if another process got there first — in which case that process's secret is used.
 * A reader therefore never sees a partial file, and two relayers starting together agree.
 */
export function loadOrCreateAuthSecret(stateDir: string): Uint8Array {
  const file = path.join(stateDir, AUTH_SECRET_FILE);
  // Anyone who reads the secret can mint owner sessions: 0600 in a 0700 directory, also when an
  // earlier run or a restore left them looser.
  privateDir(stateDir);
  tightenFile(file);
  try {
    return readSecret(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const temporary = path.join(stateDir, `.${AUTH_SECRET_FILE}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = fs.openSync(temporary, "wx", 0o600);
  try {
    fs.writeSync(fd, randomBytes(AUTH_SECRET_BYTES));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  return readSecret(file);
}
