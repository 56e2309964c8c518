import { DogsledError } from '../../service/errors.js';
import type { CliContext } from '../context.js';
export async function itemsCommand(_flags: object, _ctx: CliContext): Promise<number> {
  throw new DogsledError('items: being built');
}
