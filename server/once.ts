/** `fn` to be called any number of times, running the first time only (a place given back once, however many paths give it). */
export function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
