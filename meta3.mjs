import { build } from 'esbuild';
const r=await build({stdin:{contents:"import {decodeUtf8} from './src/text/index.js'; console.log(decodeUtf8)",resolveDir:'.',loader:'ts'},bundle:true,format:'esm',platform:'node',packages:'external',metafile:true,write:false,logLevel:'error'});
for (const [o,v] of Object.entries(r.metafile.outputs)) { console.log(o,v.bytes); for (const [i,x] of Object.entries(v.inputs)) console.log('  ',i,x.bytesInOutput); }
