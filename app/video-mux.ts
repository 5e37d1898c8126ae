/**
 * The parts of mediabunny the video export (path-video.ts) muxes with: loaded by a
 * dynamic import of this module on the first export, so that the page's first load
 * does not pay for them, and only these (the bundler drops the rest of mediabunny).
 */
export { BufferTarget, EncodedPacket, EncodedVideoPacketSource, Mp4OutputFormat, Output, WebMOutputFormat } from 'mediabunny';
