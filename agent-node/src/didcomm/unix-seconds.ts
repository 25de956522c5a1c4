/**
 * Date fields sent as Unix seconds (2060.io receipts and reactions): a `Date` in memory, an
 * integer number of seconds on the wire.
 */
import { Transform, TransformationType } from 'class-transformer'

/** class-transformer decorator: `Date` <-> Unix seconds. */
export function UnixSeconds(): PropertyDecorator {
  return Transform(({ value, type }) => {
    if (type === TransformationType.CLASS_TO_PLAIN) return value instanceof Date ? Math.floor(value.getTime() / 1000) : value
    return typeof value === 'number' ? new Date(value * 1000) : value
  })
}
