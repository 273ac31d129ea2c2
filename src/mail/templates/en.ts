/** English, the language every message has (others are files beside this one, with the same shape). */
import type { Words } from './words.js';

export const en: Words = {
  greeting: (name) => (name ? `Hello ${name},` : 'Hello,'),
  subject: {
    booking_confirmed: (f) => `Confirmed: ${f.service} at ${f.business}, ${f.when}`,
    booking_requested: (f) => `Requested: ${f.service} at ${f.business}, ${f.when}`,
    booking_declined: (f) => `Not accepted: ${f.service} at ${f.business}`,
    payment_needed: (f) => `Payment needed to keep ${f.service} at ${f.business}`,
    booking_rescheduled: (f) => `Moved: ${f.service} at ${f.business}, now ${f.when}`,
    booking_canceled: (f) => `Canceled: ${f.service} at ${f.business}, ${f.when}`,
    refund_issued: (f) => `Refund from ${f.business}`,
    reminder: (f) => `Reminder: ${f.service} at ${f.business}, ${f.when}`,
    waitlist_offer: (f) => `A place is free: ${f.service} at ${f.business}`,
  },
  lead: {
    booking_confirmed: (f) => [
      `Your booking is confirmed: ${f.service} on ${f.when}.`,
      ...(f.paid ? [`Payment received: ${f.paid}.`] : []),
    ],
    booking_requested: (f) => [
      `${f.business} has your request for ${f.service} on ${f.when}.`,
      `It is not confirmed yet: the business answers by ${f.deadline}. We will write again either way.`,
    ],
    booking_declined: (f) => [
      `${f.business} could not accept your request for ${f.service} on ${f.when}.`,
      ...(f.refund ? [`A refund of ${f.refund} is on its way.`] : []),
    ],
    payment_needed: (f) => [
      `To keep ${f.service} on ${f.when}, pay ${f.due} by ${f.deadline}.`,
      'Without payment by then the place is released.',
    ],
    booking_rescheduled: (f) => [
      `Your booking has moved: ${f.service} is now on ${f.when}.`,
      'The calendar invitation attached replaces the earlier one.',
    ],
    booking_canceled: (f) => [
      `Your booking for ${f.service} on ${f.when} is canceled.`,
      ...(f.fee ? [`A cancellation fee of ${f.fee} applies.`] : []),
      ...(f.refund ? [`A refund of ${f.refund} is on its way.`] : []),
    ],
    refund_issued: (f) => [`${f.business} has refunded ${f.refund ?? 'a payment'} for ${f.service} on ${f.when}.`],
    reminder: (f) => [`A reminder: ${f.service} on ${f.when}.`],
    waitlist_offer: (f) => [
      `A place for ${f.service} on ${f.when} is yours if you want it.`,
      `Accept or decline by ${f.deadline}; after that it goes to the next person waiting.`,
    ],
  },
  account: {
    signup: (code) => ({
      subject: `Your sign-up code: ${code}`,
      lines: [
        `Your code is ${code}.`,
        'Enter it on the sign-up page to finish creating your account. It works once and expires soon.',
      ],
      footer: 'If you did not ask for an account, ignore this message: nothing is created without the code.',
    }),
    reset: (url, minutes) => ({
      subject: 'Reset your password',
      lines: [
        `Someone (we hope you) asked to reset the password of your account. The link below works once, for ${minutes} minutes.`,
      ],
      link: url,
      linkLabel: 'Choose a new password',
      footer: 'If you did not ask for this, ignore this message: your password stays as it is.',
    }),
    ownerInvite: (url, hours) => ({
      subject: 'Set up your dashboard',
      lines: [
        `Your booking site is ready. Choose the password of your dashboard account with the link below: it works once, for ${hours} hours.`,
      ],
      link: url,
      linkLabel: 'Set up my account',
      footer: 'If you were not expecting this, ignore this message: no account is made without the link.',
    }),
  },
  labels: {
    when: 'When',
    where: 'Where',
    with: 'With',
    price: 'Price',
    due: 'Still to pay',
    terms: 'Terms',
    booking: 'See your booking',
    pay: 'Pay now',
    offer: 'Accept or decline the offer',
    reminders_off: 'Stop reminders for this booking',
    footer: (business) => `You receive this message because you booked with ${business}.`,
    contact: (phone, email) =>
      phone || email
        ? `Questions? ${[phone ? `Call ${phone}` : '', email ? `${phone ? 'or write to' : 'Write to'} ${email}` : ''].filter(Boolean).join(' ')}.`
        : undefined,
  },
};
