import { createPublicKey, verify as cryptoVerify } from 'node:crypto';
import { createPopKey, withMcpProof } from '../dist/client/platform-auth.js';
import { verifyPopProof } from '../dist/security/pop.js';
import { argumentsDigest } from '../dist/security/jcs.js';
const key = createPopKey();
const iat = 1_790_000_000, AUD='https://a.example/.well-known/usp';
const args = withMcpProof(key, 'usp_bookings_create', {service_id:'x', buyer:{first_name:'a'}, _meta:{usp:{profile:'p'}}}, AUD, { iat, jti: 'j' });
const proof = args._meta.usp.authorization.proof;
const d = argumentsDigest(args);
const [h,p,s] = proof.split('.');
const edData = Buffer.from(`${h}.${p}`, 'ascii'), edSig = Buffer.from(s,'base64url'), edKey = createPublicKey({ key: key.publicJwk, format: 'jwk' });
const fns = { floor: () => cryptoVerify(null, edData, edKey, edSig), pop: () => verifyPopProof(proof, { binding: 'mcp', now: iat*1000, method: 'usp_bookings_create', audiences: [AUD], argsDigest: d }) };
const res = {floor:[],pop:[]};
for (let r=0;r<15;r++) for (const k in fns) { const t0=process.hrtime.bigint(); for(let i=0;i<200;i++) fns[k](); res[k].push(Number(process.hrtime.bigint()-t0)/200/1000); }
for (const k in res) { res[k].sort((a,b)=>a-b); console.log(k, res[k][0].toFixed(1), res[k][7].toFixed(1)); }
if (process.argv[2]==='prof') { const t0=Date.now(); while(Date.now()-t0<3000) fns.pop(); }
