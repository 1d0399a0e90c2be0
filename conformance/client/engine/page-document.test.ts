import { describe, expect, it } from 'vitest';
import { documentVisibility } from '../../../src/connection/default-environment';
import { PageDocument } from './page-document';

describe('PageDocument', () => {
  it('tells visibility the way a browser document does, firing visibilitychange on a change only', () => {
    const page = new PageDocument(true);
    const seen: string[] = [];
    const listener = () => seen.push(page.visibilityState);
    page.addEventListener('visibilitychange', listener);
    page.addEventListener('visibilitychange', { handleEvent: (event) => seen.push(`object:${event.type}`) });
    page.setVisible(false);
    page.setVisible(false);
    expect([page.hidden, seen]).toEqual([true, ['hidden', 'object:visibilitychange']]);
    page.removeEventListener('visibilitychange', listener);
    page.setVisible(true);
    expect(seen).toEqual(['hidden', 'object:visibilitychange', 'object:visibilitychange']);
  });

  it('lets go of a listener whose signal aborts', () => {
    const page = new PageDocument(true);
    const controller = new AbortController();
    let calls = 0;
    page.addEventListener('visibilitychange', () => calls++, { signal: controller.signal });
    page.setVisible(false);
    controller.abort();
    page.setVisible(true);
    expect(calls).toBe(1);
  });

  it('is what our client reads as a browser page', () => {
    const page = new PageDocument(false);
    const source = documentVisibility(page);
    const changes: boolean[] = [];
    source.subscribe((visible) => changes.push(visible));
    page.setVisible(true);
    expect([source.visible, changes]).toEqual([true, [true]]);
  });
});
