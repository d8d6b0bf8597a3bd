/**
 * @codecall/transport-stream — tool calls over a relay inside the environment, multiplexed on one
 * long-lived process's stdin/stdout: for remote backends that keep stdio open (docker, ssh).
 */
export { createTransport, StreamTransport, type StreamTransportOptions } from "./stream-transport.js";
export {
  encodeRelayAck,
  encodeRelayFrame,
  MAX_RELAY_FRAME_BYTES,
  RELAY_GREETING,
  RelayFrameDecoder,
  RelayProtocolError,
  type RelayEvent,
} from "./relay-frames.js";
