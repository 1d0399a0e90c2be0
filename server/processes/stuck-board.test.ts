import { describe, expect, it } from 'vitest';
import type { Mutation } from '../../src/protocol';
import { MAX_ID_BYTES } from '../stored-text';
import { blamed, BOARD_SLOTS, StillnessWatch, StuckBoard, StuckList, MAX_STUCK_MUTATIONS } from './stuck-board';

const mutation = (clientID: string, id: number): Mutation => ({ id, clientID, name: 'm', args: null, timestamp: 0 });

describe('StuckBoard', () => {
  it('lists the mutations under way oldest first, by room, client and id (512-byte non-ASCII ids too), with their timeouts', () => {
    const board = new StuckBoard();
    const longRoom = 'é'.repeat(MAX_ID_BYTES / 2);
    const a = board.started(longRoom, mutation('ç'.repeat(MAX_ID_BYTES / 2), 7));
    const b = board.started('r2', mutation('c2', 1));
    board.timedOut(a);
    const seq = board.seq;
    expect(board.running).toBe(2);
    expect(new StuckBoard(board.buffer).inFlight()).toEqual([
      { roomID: longRoom, clientID: 'ç'.repeat(MAX_ID_BYTES / 2), mutationID: 7, timedOut: true },
      { roomID: 'r2', clientID: 'c2', mutationID: 1, timedOut: false },
    ]);
    board.settled(a);
    expect(board.seq).not.toBe(seq);
    // The freed slot is taken again, after the one still under way in the order.
    board.started('r3', mutation('c3', 2));
    expect(board.inFlight().map((m) => m.roomID)).toEqual(['r2', 'r3']);
    board.settled(b);
  });

  it('names a slot taken again right, for the same room or client as before or another', () => {
    const board = new StuckBoard();
    const first = board.started('room-1', mutation('client-1', 1));
    board.settled(first);
    const again = board.started('room-1', mutation('c2', 2));
    expect(again).toBe(first);
    expect(new StuckBoard(board.buffer).inFlight()).toEqual([{ roomID: 'room-1', clientID: 'c2', mutationID: 2, timedOut: false }]);
    board.settled(again);
    expect(board.started('r2', mutation('c2', 3))).toBe(first);
    expect(new StuckBoard(board.buffer).inFlight()).toEqual([{ roomID: 'r2', clientID: 'c2', mutationID: 3, timedOut: false }]);
  });

  it('counts mutations beyond its slots without naming them', () => {
    const board = new StuckBoard();
    const slots = Array.from({ length: BOARD_SLOTS + 3 }, (_, i) => board.started('r', mutation(`c${i}`, 1)));
    expect(slots.filter((s) => s === -1)).toHaveLength(3);
    expect(board.running).toBe(BOARD_SLOTS + 3);
    expect(board.inFlight()).toHaveLength(BOARD_SLOTS);
    for (const s of slots) board.settled(s);
    expect(board.running).toBe(0);
    expect(board.inFlight()).toEqual([]);
  });
});

describe('StillnessWatch', () => {
  it('takes a board still for its window, with a mutation under way, for stuck', () => {
    const board = new StuckBoard();
    const watch = new StillnessWatch(board, 1250, 0);
    board.started('r', mutation('c', 1));
    expect(watch.stuck(100)).toBe(false); // the start moved it
    expect(watch.stuck(1300)).toBe(false);
    expect(watch.stuck(1350)).toBe(true);
  });

  it('never while the main thread beats (its mutator only awaits), nor with no mutation under way', () => {
    const board = new StuckBoard();
    const watch = new StillnessWatch(board, 1250, 0);
    expect(watch.stuck(5000)).toBe(false);
    const slot = board.started('r', mutation('c', 1));
    for (let t = 0; t <= 10_000; t += 250) {
      board.beat();
      expect(watch.stuck(t)).toBe(false);
    }
    // The beats stop (the thread is held): stuck once still for the window after the last one seen.
    expect(watch.stuck(11_000)).toBe(false);
    expect(watch.stuck(11_250)).toBe(true);
    board.settled(slot);
    expect(watch.stuck(20_000)).toBe(false);
    expect(watch.stuck(40_000)).toBe(false);
  });
});

describe('blamed', () => {
  const m = (clientID: string, timedOut: boolean) => ({ roomID: 'r', clientID, mutationID: 1, timedOut });

  it('blames the oldest mutation under way: the others started while it awaited', () => {
    expect(blamed([m('old', false), m('young', false)])?.clientID).toBe('old');
    expect(blamed([])).toBeUndefined();
  });

  it('blames none while one its timer failed is under way (it may be the one that blocks, processed as failed already)', () => {
    expect(blamed([m('failed', true), m('running', false)])).toBeUndefined();
    expect(blamed([m('a', true)])).toBeUndefined();
  });
});

describe('StuckList', () => {
  it('knows a mutation by room, client and id, and forgets the oldest beyond its bound', () => {
    const list = new StuckList([{ roomID: 'r', clientID: 'c', mutationID: 1 }]);
    expect(list.has('r', 'c', 1)).toBe(true);
    expect(list.has('r', 'c', 2)).toBe(false);
    for (let i = 0; i < MAX_STUCK_MUTATIONS; i++) list.add({ roomID: 'r', clientID: 'x', mutationID: i });
    expect(list.size).toBe(MAX_STUCK_MUTATIONS);
    expect(list.has('r', 'c', 1)).toBe(false);
    expect(new StuckList(list.toJSON()).has('r', 'x', 5)).toBe(true);
  });
});
