/**
 * The settings in the owner's words: a label and a line of help for each member of the business
 * file's settings, which the settings screen shows instead of the member's name. A setting missing
 * here falls back to its name and schema description (test/admin/dashboard-chores.test.ts names it).
 */
export const SETTING_WORDS: Readonly<Record<string, { label: string; help: string }>> = {
  hold_ttl_seconds: {
    label: 'How long a hold keeps a time (seconds)',
    help: 'While a buyer decides, the time is kept for them this long; then it is free again. 600 is ten minutes.',
  },
  payment_ttl_seconds: {
    label: 'Longest a buyer has to pay (seconds)',
    help: 'A booking waiting for payment is released after this long unpaid, or sooner by the next setting. 86400 is one day.',
  },
  payment_due_before_start_seconds: {
    label: 'Payment due this long before the appointment (seconds)',
    help: 'The payment link closes this long before the start when that comes first. 3600 is one hour; 0 lets them pay until the start.',
  },
  payment_min_window_seconds: {
    label: 'Shortest time a buyer has to pay (seconds)',
    help: 'However close the appointment, a buyer has at least this long to pay (never past the start). 1800 is half an hour.',
  },
  manual_confirmation_ttl_seconds: {
    label: 'How long you have to accept a request (seconds)',
    help: 'For services you confirm by hand: a request you neither accept nor decline in this time is declined. 86400 is one day.',
  },
  waitlist_offer_ttl_seconds: {
    label: 'How long a waitlist offer stays open (seconds)',
    help: 'When a place frees up, the person offered it has this long to take it before the next in line is asked.',
  },
  max_query_days: {
    label: 'Furthest a single availability search looks (days)',
    help: 'How many days one search for free times may cover.',
  },
  max_active_holds_per_buyer: {
    label: 'Times one buyer may hold at once, per service',
    help: 'Stops one person keeping many times from others while deciding.',
  },
  max_waitlist_entries: {
    label: 'Longest waitlist for one service',
    help: 'People beyond this are told the waitlist is full.',
  },
  reminder_offset_seconds: {
    label: 'Send the reminder this long before (seconds)',
    help: 'Platforms are told (and buyers mailed) this long before an appointment. 86400 is one day; 0 sends no reminders.',
  },
  mail_reminders: {
    label: 'Mail buyers a reminder',
    help: 'false: no reminder mail. Confirmations, changes and payment requests are always mailed.',
  },
  calendar_feed_buyer_data: {
    label: 'What staff calendars show of the buyer',
    help: 'none: only the service; name: the buyer’s name (default); name_and_contact: also their email and phone.',
  },
  mail_templates: {
    label: 'Your own wording for the mails (JSON)',
    help: 'Replaces the subject or text of a mail by its kind; see the Mail screen for the kinds and what each says now.',
  },
  public_url: {
    label: 'Your server’s public address',
    help: 'The https:// address buyers and platforms reach this server at, used in every link it sends. Empty: the address it listens on.',
  },
  checkout_url_template: {
    label: 'Your own checkout page address',
    help: 'An https:// address where buyers pay; {booking_id} and {action_id} are filled in. Empty: the built-in checkout.',
  },
  platform_payments: {
    label: 'Let platforms take payment themselves',
    help: 'true: a platform may charge the buyer and report it. false: only your own checkout completes a payment.',
  },
};
