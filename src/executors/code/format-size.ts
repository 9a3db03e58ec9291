const KIB = 1024;
const MIB = 1024 * KIB;

const trim = (value: number): string => String(Number(value.toFixed(1)));

/** Human size for messages the model reads: `512 bytes`, `3.5 KiB`, `2.3 MiB`. */
export const formatSize = (bytes: number): string => {
  if (bytes >= MIB) return `${trim(bytes / MIB)} MiB`;
  if (bytes >= KIB) return `${trim(bytes / KIB)} KiB`;
  return `${bytes} bytes`;
};
