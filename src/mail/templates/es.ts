/** Spanish: every message, in the same shape as the English file. */
import type { Words } from './words.js';

export const es: Words = {
  greeting: (name) => (name ? `Hola, ${name}:` : 'Hola:'),
  subject: {
    booking_confirmed: (f) => `Confirmada: ${f.service} en ${f.business}, ${f.when}`,
    booking_requested: (f) => `Solicitada: ${f.service} en ${f.business}, ${f.when}`,
    booking_declined: (f) => `No aceptada: ${f.service} en ${f.business}`,
    payment_needed: (f) => `Falta el pago para mantener ${f.service} en ${f.business}`,
    booking_rescheduled: (f) => `Cambio de hora: ${f.service} en ${f.business}, ahora ${f.when}`,
    booking_canceled: (f) => `Cancelada: ${f.service} en ${f.business}, ${f.when}`,
    refund_issued: (f) => `Reembolso de ${f.business}`,
    reminder: (f) => `Recordatorio: ${f.service} en ${f.business}, ${f.when}`,
    waitlist_offer: (f) => `Hay un lugar libre: ${f.service} en ${f.business}`,
  },
  lead: {
    booking_confirmed: (f) => [
      `Tu reserva está confirmada: ${f.service} el ${f.when}.`,
      ...(f.paid ? [`Pago recibido: ${f.paid}.`] : []),
    ],
    booking_requested: (f) => [
      `${f.business} ha recibido tu solicitud de ${f.service} para el ${f.when}.`,
      `Aún no está confirmada: el negocio responde antes del ${f.deadline}. Te escribiremos en cualquier caso.`,
    ],
    booking_declined: (f) => [
      `${f.business} no ha podido aceptar tu solicitud de ${f.service} para el ${f.when}.`,
      ...(f.refund ? [`Te enviamos un reembolso de ${f.refund}.`] : []),
    ],
    payment_needed: (f) => [
      `Para mantener ${f.service} el ${f.when}, paga ${f.due} antes del ${f.deadline}.`,
      'Si no recibimos el pago para entonces, el lugar quedará libre.',
    ],
    booking_rescheduled: (f) => [
      `Tu reserva ha cambiado: ${f.service} es ahora el ${f.when}.`,
      'La invitación de calendario adjunta sustituye a la anterior.',
    ],
    booking_canceled: (f) => [
      `Tu reserva de ${f.service} del ${f.when} está cancelada.`,
      ...(f.fee ? [`Se aplica un cargo por cancelación de ${f.fee}.`] : []),
      ...(f.refund ? [`Te enviamos un reembolso de ${f.refund}.`] : []),
    ],
    refund_issued: (f) => [`${f.business} te ha reembolsado ${f.refund ?? 'un pago'} por ${f.service} del ${f.when}.`],
    reminder: (f) => [`Un recordatorio: ${f.service} el ${f.when}.`],
    waitlist_offer: (f) => [
      `Hay un lugar para ${f.service} el ${f.when}, y es tuyo si lo quieres.`,
      `Acéptalo o recházalo antes del ${f.deadline}; después pasa a la siguiente persona en espera.`,
    ],
  },
  account: {
    signup: (code) => ({
      subject: `Tu código de registro: ${code}`,
      lines: [
        `Tu código es ${code}.`,
        'Escríbelo en la página de registro para terminar de crear tu cuenta. Sirve una sola vez y caduca pronto.',
      ],
      footer: 'Si no has pedido una cuenta, ignora este mensaje: sin el código no se crea nada.',
    }),
    reset: (url, minutes) => ({
      subject: 'Restablece tu contraseña',
      lines: [
        `Alguien (esperamos que tú) ha pedido restablecer la contraseña de tu cuenta. El enlace de abajo sirve una sola vez, durante ${minutes} minutos.`,
      ],
      link: url,
      linkLabel: 'Elegir una contraseña nueva',
      footer: 'Si no lo has pedido tú, ignora este mensaje: tu contraseña sigue siendo la misma.',
    }),
    ownerInvite: (url, hours) => ({
      subject: 'Configura tu panel',
      lines: [
        `Tu web de reservas está lista. Elige la contraseña de tu cuenta del panel con el enlace de abajo: sirve una sola vez, durante ${hours} horas.`,
      ],
      link: url,
      linkLabel: 'Configurar mi cuenta',
      footer: 'Si no esperabas este mensaje, ignóralo: sin el enlace no se crea ninguna cuenta.',
    }),
  },
  labels: {
    when: 'Cuándo',
    where: 'Dónde',
    with: 'Con',
    price: 'Precio',
    due: 'Pendiente de pago',
    terms: 'Condiciones',
    booking: 'Ver tu reserva',
    pay: 'Pagar ahora',
    offer: 'Aceptar o rechazar la oferta',
    reminders_off: 'No enviar más recordatorios de esta reserva',
    footer: (business) => `Recibes este mensaje porque hiciste una reserva en ${business}.`,
    contact: (phone, email) =>
      phone || email
        ? `¿Preguntas? ${[phone ? `Llama al ${phone}` : '', email ? `${phone ? 'o escribe a' : 'Escribe a'} ${email}` : ''].filter(Boolean).join(' ')}.`
        : undefined,
  },
};
