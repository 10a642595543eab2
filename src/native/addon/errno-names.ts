// Errno names come from the addon's one table (native/napi/errors.cc), the one its own errors are
// named with, so a NetlinkError built here and an error thrown there say the same `code`.
import { loadAddon } from './addon-loader';

export function errnoName(errno: number): string {
  return loadAddon().errnoName(errno);
}
