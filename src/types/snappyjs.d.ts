// snappyjs ships no types: the two functions this service uses.
declare module 'snappyjs' {
  export function uncompress(compressed: Uint8Array, maxLength?: number): Uint8Array;
  export function compress(uncompressed: Uint8Array): Uint8Array;
  const snappy: { uncompress: typeof uncompress; compress: typeof compress };
  export default snappy;
}
