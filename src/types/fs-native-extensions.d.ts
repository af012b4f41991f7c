// The part of fs-native-extensions (holepunchto) that alertmon uses; the package ships no types.
declare module 'fs-native-extensions' {
  interface LockOptions {
    /** A shared (read) lock instead of an exclusive one. */
    shared?: boolean;
  }
  /** Takes the lock without waiting; false when another open file description holds it. */
  export function tryLock(fd: number, opts?: LockOptions): boolean;
  export function unlock(fd: number): void;
  const fsx: { tryLock: typeof tryLock; unlock: typeof unlock };
  export default fsx;
}
