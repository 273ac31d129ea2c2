/**
 * A hosted business's new SQLite file, copied from a migrated empty one instead of running every
 * migration on it: creating the schema (about 20 migrations, hundreds of tables, indexes and
 * triggers) was the largest part of a new business's first request after the checkpoint thread
 * (docs/SCALING.md). The template is made once per process and data folder, from the migrations of
 * the code running (so an upgraded process never copies an old schema; a copy of an older one would
 * still be brought up to date by the store's own migration on open). It holds the schema only: every
 * secret and key of a business is made when the business is composed, after the copy, never in a
 * migration, so no two businesses share one.
 */
import { constants, copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openStore } from '../store/index.js';

const templates = new Map<string, Promise<string>>();

/** The template of a folder of business files: made (once per process) by opening and closing an empty store. */
function templateIn(folder: string): Promise<string> {
  let made = templates.get(folder);
  if (!made) {
    made = (async () => {
      mkdirSync(folder, { recursive: true });
      const path = join(folder, '.schema-template.db');
      // Made under a name of this process's own, then renamed: another process never copies a half-made file.
      const draft = `${path}.${process.pid}.${Date.now()}`;
      try {
        // Closing the last connection copies the log into the file and deletes it: one self-contained file.
        await (await openStore(draft)).close();
        renameSync(draft, path);
      } finally {
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${draft}${suffix}`, { force: true });
      }
      return path;
    })();
    made.catch(() => templates.delete(folder));
    templates.set(folder, made);
  }
  return made;
}

/** A business's SQLite file that does not exist yet: a copy of the template (an existing one is left alone). */
export async function seedSqliteFile(file: string): Promise<void> {
  if (existsSync(file)) return;
  const template = await templateIn(dirname(file));
  try {
    copyFileSync(template, file, constants.COPYFILE_EXCL);
  } catch (err) {
    // Made meanwhile by another process: it is that business's file now.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
