/** @codecall/backend-modal — run scripts and commands in Modal sandboxes through the Modal JS SDK. */
export { createEnvironment, ModalEnvironment } from "./modal-environment.js";
export { environmentOptions, parseModalOptions, type ModalEnvironmentOptions, type ParsedModalOptions } from "./modal-options.js";
