import type { ChannelSettings } from '../channels/types.js';

/** Configuration the delivery path and its channels run with. */
export type DeliverySettings = ChannelSettings;
