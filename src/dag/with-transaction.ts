/** withRead/withWrite on top of read()/write(), for every DagStore. */
import type { DagRead, DagWrite } from './types';

export async function withRead<T extends DagRead, R>(open: () => Promise<T>, fn: (read: T) => R | Promise<R>): Promise<R> {
  const read = await open();
  try {
    return await fn(read);
  } finally {
    read.release();
  }
}

/** The write is released (rolled back if not committed) when `fn` returns or throws. */
export async function withWrite<T extends DagWrite, R>(open: () => Promise<T>, fn: (write: T) => R | Promise<R>): Promise<R> {
  const write = await open();
  try {
    return await fn(write);
  } finally {
    write.release();
  }
}
